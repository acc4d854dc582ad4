import type * as HttpClient from "@effect/platform/HttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { DEFAULT_SESSION_HEADER } from "../../../core/http.js"
import { isEnvelope } from "../../../core/response.js"
import { SvcClient } from "../../Client/SvcClient.js"
import type { SvcError } from "../../Client/SvcError.js"
import { SessionData } from "../SessionData.js"
import type { HttpValidatorOptions } from "../SessionValidator.js"
import { SessionValidatorUnavailable } from "../SessionValidatorUnavailable.js"
import { describe, durationOption, nameOption } from "./options.js"
import type { ValidatorService } from "./validators.js"

/** Statuses by which the auth service says "no such session". */
const INVALID_STATUSES: ReadonlySet<number> = new Set([
  401, // not authenticated
  403, // forbidden: the session exists but may not be used
  404 // no such session
])

const DEFAULT_HTTP_TIMEOUT = Duration.seconds(5)

/** Every default in one place; bad options throw here, where `http` is called. */
export const httpSettings = (options: HttpValidatorOptions) => {
  const name = "SessionValidator.http"
  if (options === null || typeof options !== "object") {
    throw new TypeError(`${name}: options must be an object, got ${describe(options)}`)
  }
  const url = absoluteHttpUrl(`${name}: options.url`, options.url)
  const retryAttempts = options.retryAttempts ?? 0
  if (!Number.isSafeInteger(retryAttempts) || retryAttempts < 0) {
    throw new RangeError(
      `${name}: options.retryAttempts must be an integer ≥ 0, got ${describe(retryAttempts)}`
    )
  }
  return {
    url,
    header: nameOption(`${name}: options.header`, options.header, DEFAULT_SESSION_HEADER),
    headers: options.headers ?? {},
    timeout: durationOption(`${name}: options.timeout`, options.timeout, DEFAULT_HTTP_TIMEOUT),
    retryAttempts
  }
}

const absoluteHttpUrl = (name: string, value: unknown): string => {
  const parsed = typeof value === "string" && URL.canParse(value) ? new URL(value) : undefined
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new TypeError(`${name} must be an absolute http: or https: URL, got ${describe(value)}`)
  }
  return value as string
}

/**
 * `GET <url>` with the id in the session header, through the svc-sdk client. Fail closed: a 2xx is
 * a valid session only when its body is `SessionData`, or an envelope whose `data` is and that
 * neither says `success: false` nor carries an `error`; 401/403/404, and a 2xx that says
 * `success: false` or carries an `error`, are an invalid session; anything else is unavailable.
 */
export const http = (
  settings: ReturnType<typeof httpSettings>
): Effect.Effect<ValidatorService, never, HttpClient.HttpClient> =>
  Effect.map(
    SvcClient.make(settings.url, {
      includeSession: false,
      // the id travels in this header per call: naming it the session header keeps it out of spans
      sessionHeader: settings.header,
      headers: settings.headers,
      timeout: settings.timeout,
      retryAttempts: settings.retryAttempts,
      // an answer from wherever a redirect leads is not the auth service's: a 3xx is unavailable
      redirect: "manual"
    }),
    (client): ValidatorService => ({
      validate: (id) =>
        client
          .get("", {
            headers: { [settings.header]: Redacted.value(id) },
            // the answer as sent: the client's envelope lifting would hide `success: false`
            responseType: "text"
          })
          .pipe(
            Effect.flatMap((response) =>
              response.status === 200
                ? sessionOfAnswer(response.data)
                : Effect.fail(
                    new SessionValidatorUnavailable({
                      reason: "InvalidResponse",
                      description: `the auth service answered ${response.status}, expected 200`
                    })
                  )
            ),
            Effect.catchAll(answerOfFailure)
          )
    })
  )

const decodeSession = Schema.decodeUnknown(SessionData)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether an answer denies the session in its body: a `success` that is not `true` (`false`, but
 * also `"false"`, `0`, `null`: fail closed), an `error` of any kind, or a `status` that says so
 * (a number outside 2xx, JSend's `"error"` and `"fail"`).
 */
const denies = (body: Record<string, unknown>): boolean =>
  ("success" in body && body.success !== true) ||
  (body.error !== undefined && body.error !== null) ||
  (typeof body.status === "number" && (body.status < 200 || body.status > 299)) ||
  body.status === "error" ||
  body.status === "fail"

/** The session in a 200 answer's text, `None` when the answer denies it. */
const sessionOfAnswer = (
  text: unknown
): Effect.Effect<Option.Option<SessionData>, SessionValidatorUnavailable> => {
  let body: unknown
  try {
    body = JSON.parse(String(text))
  } catch {
    return unavailable("InvalidResponse", "the auth service's answer is not JSON")
  }
  if (!isRecord(body)) {
    return unavailable("InvalidResponse", "the auth service's answer is not SessionData")
  }
  const record = body as Record<string, unknown>
  if (denies(record)) return Effect.succeedNone
  const session = isEnvelope(record) ? record.data : record
  // an envelope's data that denies the session itself
  if (isEnvelope(record) && isRecord(session) && denies(session)) return Effect.succeedNone
  return decodeSession(session).pipe(
    Effect.map(Option.some),
    // the answer's text stays out: an auth service may quote the id in it
    Effect.mapError(
      () =>
        new SessionValidatorUnavailable({
          reason: "InvalidResponse",
          description: "the auth service's answer is not SessionData"
        })
    )
  )
}

const answerOfFailure = (
  error: SvcError | SessionValidatorUnavailable
): Effect.Effect<Option.Option<SessionData>, SessionValidatorUnavailable> => {
  switch (error._tag) {
    case "SessionValidatorUnavailable":
      return Effect.fail(error)
    case "HttpError":
      return INVALID_STATUSES.has(error.status)
        ? Effect.succeedNone
        : unavailable("Failure", `the auth service answered ${error.status}`)
    case "TimeoutError":
      return unavailable("Timeout", error.message)
    case "DecodeError":
      // the answer's text stays out: an auth service may quote the id in it
      return unavailable("InvalidResponse", "the auth service's answer is not SessionData")
    default:
      return unavailable("Failure", error.message)
  }
}

const unavailable = (reason: SessionValidatorUnavailable["reason"], description: string) =>
  Effect.fail(new SessionValidatorUnavailable({ reason, description }))
