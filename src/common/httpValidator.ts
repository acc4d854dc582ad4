/**
 * `SessionValidator.http` of both lines: `GET <url>` with the id in the session header, through the
 * line's svc-sdk client. What the answer means (fail closed) is `core/authService.ts`'s: this
 * decodes the session it finds, with the line's `SessionData`.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  type HttpValidatorSettings,
  NOT_SESSION_DATA,
  readAnswer,
  readFailure,
  type ServiceAnswer
} from "../core/authService.js"
import type { ClientGet } from "./authRequest.js"
import type { SessionValidatorServiceOf } from "./authServices.js"
import type { AuthDialect } from "./dialect.js"
import { SessionValidatorUnavailable } from "./SessionValidatorUnavailable.js"

/** The client's config for the auth service: `makeClient` is the line's `SvcClient.make`. */
export const clientConfig = (settings: HttpValidatorSettings) =>
  ({
    includeSession: false,
    // the id travels in this header per call: naming it the session header keeps it out of spans
    sessionHeader: settings.header,
    headers: settings.headers,
    timeout: settings.timeoutMillis,
    retryAttempts: settings.retryAttempts,
    // an answer from wherever a redirect leads is not the auth service's: a 3xx is unavailable
    redirect: "manual"
  }) as const

/** The validator over `client`, the line's svc-sdk client made with {@link clientConfig}. */
export const http = <Session, R>(
  line: Pick<AuthDialect<Session>, "decodeSession">,
  settings: HttpValidatorSettings,
  client: Effect.Effect<ClientGet, never, R>
): Effect.Effect<SessionValidatorServiceOf<Session>, never, R> =>
  Effect.map(client, (client) => ({
    validate: (id) =>
      client
        .get(settings.query, {
          headers: { [settings.header]: Redacted.value(id) },
          // the answer as sent: the client's envelope lifting would hide `success: false`
          responseType: "text"
        })
        .pipe(
          Effect.matchEffect({
            onFailure: (error) => sessionOf(line, readFailure(error)),
            onSuccess: (response) => sessionOf(line, readAnswer(response.status, response.data))
          })
        )
  }))

const sessionOf = <Session>(
  line: Pick<AuthDialect<Session>, "decodeSession">,
  answer: ServiceAnswer
): Effect.Effect<Option.Option<Session>, SessionValidatorUnavailable> => {
  switch (answer._tag) {
    case "Denied":
      return Effect.succeedNone
    case "Unavailable":
      return Effect.fail(
        new SessionValidatorUnavailable({ reason: answer.reason, description: answer.description })
      )
    case "Session": {
      const decoded = line.decodeSession(answer.session)
      // the answer's text stays out: an auth service may quote the id in it
      return decoded._tag === "Session"
        ? Effect.succeed(Option.some(decoded.session))
        : Effect.fail(
            new SessionValidatorUnavailable({
              reason: "InvalidResponse",
              description: NOT_SESSION_DATA
            })
          )
    }
  }
}
