/**
 * The session validators' rules that do not depend on an Effect line: the options of
 * `SessionValidator.http` and `cached`, and what a remote auth service's answer means (SPEC 6.4),
 * failing closed.
 */
import {
  type DurationMillis,
  durationOption,
  positiveIntegerOption,
  tokenOption
} from "./authOptions.js"
import type { SessionDataInput } from "./authRules.js"
import { describe } from "./describe.js"
import { DEFAULT_SESSION_HEADER } from "./http.js"
import { ENVELOPE_KEYS, isEnvelope } from "./response.js"
import { isValidSessionId } from "./sessionId.js"

/**
 * Why a validator could not answer:
 * - `Failure`: the lookup failed (a rejected promise, a network error, an unexpected status).
 * - `Timeout`: it did not answer in time.
 * - `InvalidResponse`: it answered something that is not `SessionData`.
 * - `Defect`: it threw.
 *
 * @since 0.1.0
 * @category errors
 */
export type SessionValidatorUnavailableReason = "Failure" | "Timeout" | "InvalidResponse" | "Defect"

/** Statuses by which the auth service says "no such session". */
const INVALID_STATUSES: ReadonlySet<number> = new Set([
  401, // not authenticated
  403, // forbidden: the session exists but may not be used
  404 // no such session
])

const DEFAULT_HTTP_TIMEOUT_MILLIS = 5_000

export interface HttpValidatorSettings {
  /** The service's URL without its query (and fragment): the client's base URL. */
  readonly url: string
  /** The URL's query (`?…`, or `""`): each request's endpoint, on the base URL as it is. */
  readonly query: string
  readonly header: string
  readonly headers: Readonly<Record<string, string>>
  readonly timeoutMillis: number
  readonly retryAttempts: number
}

/** Every default of `SessionValidator.http` in one place; bad options throw here. */
export const httpSettings = (
  durationMillis: DurationMillis,
  options: {
    readonly url: string
    readonly header?: string | undefined
    readonly headers?: Readonly<Record<string, string>> | undefined
    readonly timeout?: unknown
    readonly retryAttempts?: number | undefined
  }
): HttpValidatorSettings => {
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
    url: url.replace(/[?#].*$/s, ""),
    query: new URL(url).search,
    header: tokenOption(
      `${name}: options.header`,
      options.header,
      DEFAULT_SESSION_HEADER,
      "header"
    ),
    headers: options.headers ?? {},
    timeoutMillis: durationOption(
      durationMillis,
      `${name}: options.timeout`,
      options.timeout,
      DEFAULT_HTTP_TIMEOUT_MILLIS
    ),
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

/** What an auth service's answer says: no such session, a session to decode, or nothing usable. */
export type ServiceAnswer =
  | { readonly _tag: "Denied" }
  | { readonly _tag: "Session"; readonly session: unknown }
  | {
      readonly _tag: "Unavailable"
      readonly reason: SessionValidatorUnavailableReason
      readonly description: string
    }

const denied: ServiceAnswer = { _tag: "Denied" }

const unusable = (
  reason: SessionValidatorUnavailableReason,
  description: string
): ServiceAnswer => ({
  _tag: "Unavailable",
  reason,
  description
})

/** The description of an answer that is not `SessionData`: its text stays out (it may quote the id). */
export const NOT_SESSION_DATA = "the auth service's answer is not SessionData"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether a `status` says the answer failed: an HTTP status outside 2xx, as a number or in text
 * that starts with it (`401`, `"401"`, `"401 Unauthorized"`, `"HTTP/1.1 401 Unauthorized"`,
 * `"-1"`), or JSend's `"error"` and `"fail"` in any case.
 */
const failedStatus = (status: unknown): boolean => {
  if (typeof status === "number") return !(status >= 200 && status <= 299)
  if (typeof status !== "string") return false
  const text = status.trim().toLowerCase()
  const code = /^(?:http\/[0-9.]+\s+)?(-?[0-9]+(?:\.[0-9]+)?)(?![0-9a-z.])/.exec(text)?.[1]
  if (code !== undefined) return failedStatus(Number(code))
  return text === "error" || text === "fail"
}

/**
 * Whether an answer denies the session in its body: a `success`, `valid` or `active` (a token
 * introspection's verdict, RFC 7662) that is not `true` (`false`, but also `"false"`, `0`, `null`:
 * fail closed), an `error` of any kind, or a `status` that says so.
 */
const denies = (body: Record<string, unknown>): boolean =>
  ("success" in body && body.success !== true) ||
  ("valid" in body && body.valid !== true) ||
  ("active" in body && body.active !== true) ||
  (body.error !== undefined && body.error !== null) ||
  failedStatus(body.status)

/**
 * An auth service's envelope: the client's, or one that carries fields of its own beside (a request
 * id, a timestamp: text or numbers), told by `success: true` and a `data` where the body has no
 * `user_id` itself.
 */
const isServiceEnvelope = (body: Record<string, unknown>): boolean =>
  (body.success === true &&
    Object.hasOwn(body, "data") &&
    !Object.hasOwn(body, "user_id") &&
    // beside, only what identifies the answer: a verdict of another name (`authenticated: false`,
    // `errors: […]`) leaves it unread, and the validation unavailable (fail closed)
    Object.keys(body).every(
      (key) =>
        ENVELOPE_KEYS.has(key) || typeof body[key] === "string" || typeof body[key] === "number"
    )) ||
  isEnvelope(body)

/**
 * A 2xx answer, as sent: only a 2xx whose body is `SessionData`, or an envelope whose `data` is and
 * that neither says `success: false` nor carries an `error`, is a session (still to be decoded).
 */
export const readAnswer = (status: number, text: unknown): ServiceAnswer => {
  if (status < 200 || status > 299) {
    return unusable("InvalidResponse", `the auth service answered ${status}, expected a 2xx`)
  }
  let body: unknown
  try {
    body = JSON.parse(String(text))
  } catch {
    return unusable("InvalidResponse", "the auth service's answer is not JSON")
  }
  if (!isRecord(body)) return unusable("InvalidResponse", NOT_SESSION_DATA)
  if (denies(body)) return denied
  const enveloped = isServiceEnvelope(body)
  const session = enveloped ? body.data : body
  // an envelope's data that denies the session itself
  if (enveloped && isRecord(session) && denies(session)) return denied
  return { _tag: "Session", session }
}

/** What a failed call to the auth service (one of the client's errors) says about the session. */
export const readFailure = (error: {
  readonly _tag: string
  readonly message: string
  readonly status?: number
}): ServiceAnswer => {
  switch (error._tag) {
    case "HttpError":
      return INVALID_STATUSES.has(error.status ?? 0)
        ? denied
        : unusable("Failure", `the auth service answered ${error.status}`)
    case "TimeoutError":
      return unusable("Timeout", error.message)
    case "DecodeError":
      return unusable("InvalidResponse", NOT_SESSION_DATA)
    default:
      return unusable("Failure", error.message)
  }
}

/** `SessionValidator.fromPromise`'s lookup, checked when the validator is made. */
export const checkLookup = <F>(lookup: F): F => {
  if (typeof lookup !== "function") {
    throw new TypeError(
      `SessionValidator.fromPromise: lookup must be a function, got ${describe(lookup)}`
    )
  }
  return lookup
}

/** The entries of `SessionValidator.memory`'s table, checked to be a `Map` or an object. */
export const memoryEntries = <S>(
  sessions: ReadonlyMap<string, S> | Readonly<Record<string, S>>
): Iterable<readonly [string, S]> => {
  if (sessions === null || typeof sessions !== "object") {
    throw new TypeError(
      `SessionValidator.memory: sessions must be a Map or an object, got ${describe(sessions)}`
    )
  }
  const entries = sessions instanceof Map ? [...sessions.entries()] : Object.entries(sessions)
  // an id no guard would ever present (it refuses such ids before asking): said, never quoted
  for (const [id] of entries) {
    if (!isValidSessionId(id)) {
      throw new TypeError(
        `SessionValidator.memory: every id must be a session id (1 to 512 visible ASCII characters), got ${typeof id === "string" ? `a string of ${id.length} characters that is not one` : describe(id)}`
      )
    }
  }
  return entries
}

/** The message of a `memory` entry that does not decode, with the line's account of why. */
export const memoryEntryError = (why: string): TypeError =>
  new TypeError(`SessionValidator.memory: the session of an entry is not SessionData: ${why}`)

export const DEFAULT_CACHE_CAPACITY = 10_000

export interface CacheSettings {
  readonly ttlMillis: number
  readonly negativeTtlMillis: number
  readonly capacity: number
}

/** Checks `cached`'s options at once, so that a bad `ttl` throws where `cached` is called. */
export const cacheSettings = (
  durationMillis: DurationMillis,
  options: { readonly ttl: unknown; readonly negativeTtl?: unknown; readonly capacity?: unknown }
): CacheSettings => {
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      `SessionValidator.cached: options must be an object, got ${describe(options)}`
    )
  }
  if (options.ttl === undefined)
    throw new TypeError("SessionValidator.cached: options.ttl is required")
  const ttlMillis = durationOption(
    durationMillis,
    "SessionValidator.cached: options.ttl",
    options.ttl,
    0
  )
  return {
    ttlMillis,
    negativeTtlMillis: durationOption(
      durationMillis,
      "SessionValidator.cached: options.negativeTtl",
      options.negativeTtl,
      ttlMillis
    ),
    capacity: positiveIntegerOption(
      "SessionValidator.cached: options.capacity",
      options.capacity,
      DEFAULT_CACHE_CAPACITY
    )
  }
}

/**
 * The lookup given to `SessionValidator.fromPromise`: it receives the raw id (keep it out of your
 * logs) and an `AbortSignal` that fires when the guard gives up (timeout, client gone).
 * `null`/`undefined` means invalid; a rejection or a throw means unavailable.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionLookup = (
  id: string,
  signal: AbortSignal
) => PromiseLike<SessionDataInput | null | undefined> | SessionDataInput | null | undefined

/**
 * The sessions of `SessionValidator.memory`, keyed by id.
 *
 * @since 0.1.0
 * @category models
 */
export type MemorySessions =
  | ReadonlyMap<string, SessionDataInput>
  | Readonly<Record<string, SessionDataInput>>
