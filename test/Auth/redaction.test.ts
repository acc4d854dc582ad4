/**
 * Session ids are `Redacted` from the moment they are read: the validator gets a `Redacted`, and
 * neither logs nor error responses nor the unavailable error carry the id.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Layer, Logger, Redacted } from "effect"
import {
  optionalAuth,
  requireAuth,
  SessionValidator,
  SessionValidatorUnavailable
} from "../../src/Auth/index.js"

const SECRET = "secret-session-4242"

const run = <E>(
  guard: (
    self: Effect.Effect<HttpServerResponse.HttpServerResponse>
  ) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E,
    SessionValidator | HttpServerRequest.HttpServerRequest
  >,
  validator: Layer.Layer<SessionValidator>
) => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message, cause, annotations }) => {
    lines.push(
      JSON.stringify({ message, annotations: [...annotations] }),
      Cause.pretty(cause, { renderErrorCause: true })
    )
  })
  const request = HttpServerRequest.fromWeb(new Request(`http://localhost/x?session_id=${SECRET}`))
  return HttpServerResponse.text("ok").pipe(
    guard,
    Effect.provideService(HttpServerRequest.HttpServerRequest, request),
    Effect.provide(validator),
    Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
    Effect.flatMap((response) =>
      Effect.promise(async () => ({
        response,
        text: await HttpServerResponse.toWeb(response).text(),
        lines
      }))
    )
  )
}

describe("redaction", () => {
  it.effect("the validator receives a Redacted id", () =>
    Effect.gen(function* () {
      const received: Array<unknown> = []
      const validator = Layer.succeed(SessionValidator, {
        validate: (id) => {
          received.push(id)
          return Effect.succeedNone
        }
      })
      yield* run(requireAuth(), validator)
      expect(received).toHaveLength(1)
      expect(Redacted.isRedacted(received[0])).toBe(true)
      expect(String(received[0])).not.toContain(SECRET)
      expect(JSON.stringify(received[0])).not.toContain(SECRET)
      expect(Redacted.value(received[0] as Redacted.Redacted<string>)).toBe(SECRET)
    })
  )

  const failing: ReadonlyArray<[string, Layer.Layer<SessionValidator>]> = [
    [
      "a failure carrying the id as its cause",
      Layer.succeed(SessionValidator, {
        validate: (id) =>
          Effect.fail(new SessionValidatorUnavailable({ reason: "Failure", cause: id }))
      })
    ],
    [
      "a defect mentioning the Redacted id",
      Layer.succeed(SessionValidator, {
        validate: (id) => Effect.die(new Error(`lookup of ${id} failed`))
      })
    ],
    [
      "fromPromise rejecting",
      SessionValidator.fromPromise(() => Promise.reject(new Error("db down")))
    ]
  ]

  it.effect.each(failing)("%s: logged once, without the id", ([, validator]) =>
    Effect.gen(function* () {
      for (const guard of [requireAuth(), optionalAuth()]) {
        const { response, text, lines } = yield* run(guard, validator)
        expect(lines.join("\n")).toContain("Session validator unavailable")
        expect(lines.join("\n")).not.toContain(SECRET)
        expect(text).not.toContain(SECRET)
        expect(response.status === 500 || response.status === 200).toBe(true)
      }
    })
  )

  it.effect("the unavailable error's message and JSON do not carry the id", () =>
    Effect.gen(function* () {
      const validator = SessionValidator.fromPromise(() => {
        throw new Error("unreachable")
      })
      const error = yield* Effect.flatMap(SessionValidator, (v) =>
        v.validate(Redacted.make(SECRET))
      ).pipe(Effect.provide(validator), Effect.flip)
      expect(error.message).not.toContain(SECRET)
      expect(JSON.stringify(error)).not.toContain(SECRET)
    })
  )
})
