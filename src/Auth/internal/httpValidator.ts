import * as Effect from "effect/Effect"
import type { HttpClient } from "effect/http"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { line } from "../../Client/internal/line.js"
import { SvcClient } from "../../Client/SvcClient.js"
import {
  httpSettings as checkHttpOptions,
  type HttpValidatorSettings,
  NOT_SESSION_DATA,
  readAnswer,
  readFailure,
  type ServiceAnswer
} from "../../core/authService.js"
import { SessionData } from "../SessionData.js"
import type { HttpValidatorOptions } from "../SessionValidator.js"
import { SessionValidatorUnavailable } from "../SessionValidatorUnavailable.js"
import type { ValidatorService } from "./validators.js"

/** Every default in one place; bad options throw here, where `http` is called. */
export const httpSettings = (options: HttpValidatorOptions): HttpValidatorSettings =>
  checkHttpOptions(line.durationMillis, options)

/**
 * `GET <url>` with the id in the session header, through the svc-sdk client. What the answer
 * means (fail closed) is `core/authService.ts`'s: this decodes the session it finds.
 */
export const http = (
  settings: HttpValidatorSettings
): Effect.Effect<ValidatorService, never, HttpClient.HttpClient> =>
  Effect.map(
    SvcClient.make(settings.url, {
      includeSession: false,
      // the id travels in this header per call: naming it the session header keeps it out of spans
      sessionHeader: settings.header,
      headers: settings.headers,
      timeout: settings.timeoutMillis,
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
            Effect.matchEffect({
              onFailure: (error) => sessionOf(readFailure(error)),
              onSuccess: (response) => sessionOf(readAnswer(response.status, response.data))
            })
          )
    })
  )

const decodeSession = Schema.decodeUnknownEffect(SessionData)

const sessionOf = (
  answer: ServiceAnswer
): Effect.Effect<Option.Option<SessionData>, SessionValidatorUnavailable> => {
  switch (answer._tag) {
    case "Denied":
      return Effect.succeedNone
    case "Unavailable":
      return Effect.fail(
        new SessionValidatorUnavailable({ reason: answer.reason, description: answer.description })
      )
    case "Session":
      return decodeSession(answer.session).pipe(
        Effect.map(Option.some),
        // the answer's text stays out: an auth service may quote the id in it
        Effect.mapError(
          () =>
            new SessionValidatorUnavailable({
              reason: "InvalidResponse",
              description: NOT_SESSION_DATA
            })
        )
      )
  }
}
