/**
 * `SessionValidator.http` against a real local auth service (test/Auth/shared/authService.ts),
 * through the line's `SvcClient`. Shared: run on both Effect lines (lineKit.ts).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  CurrentUser,
  requireAuth,
  SessionValidator,
  SessionValidatorUnavailable
} from "../../src/v3/Auth/index.js"
import {
  call,
  fork,
  json,
  NodeHttpClient,
  recordingTracer,
  ServerLayer,
  serveRoutes,
  TestClock
} from "./lineKit.js"
import {
  type AuthService,
  DENIED,
  session,
  startAuthService,
  THROUGH_GUARD,
  UNAVAILABLE
} from "./shared/authService.js"

let service: AuthService
let url: string
let received: AuthService["received"]

beforeAll(async () => {
  service = await startAuthService()
  url = service.url
  received = service.received
})

afterAll(() => service.close())

const validateWith = (layer: ReturnType<typeof SessionValidator.http>, id: string) =>
  Effect.flatMap(SessionValidator, (validator) => validator.validate(Redacted.make(id))).pipe(
    Effect.provide(layer),
    Effect.provide(NodeHttpClient.layerUndici)
  )

describe("SessionValidator.http", () => {
  it.effect("keeps the id out of client spans, whatever the header's name", () =>
    Effect.gen(function* () {
      const attributes: Array<readonly [string, unknown]> = []
      for (const header of [undefined, "X-Auth-Session"]) {
        const layer = SessionValidator.http(header === undefined ? { url } : { url, header })
        const result = yield* validateWith(layer, "s-user").pipe(
          Effect.withTracer(recordingTracer(attributes))
        )
        expect(result).toEqual(Option.some(session))
      }
      // one client span per call, which records no header (the client's tracing, #25)
      expect(attributes.filter(([key]) => key === "http.request.method")).toHaveLength(2)
      expect(attributes.filter(([key]) => key.startsWith("http.request.header."))).toEqual([])
      expect(JSON.stringify(attributes)).not.toContain("s-user")
    })
  )

  it.effect("200 with SessionData → Some, extra fields kept; the id goes in X-Session-Id", () =>
    Effect.gen(function* () {
      received.length = 0
      const result = yield* validateWith(SessionValidator.http({ url }), "s-user")
      expect(result).toEqual(Option.some(session))
      expect(received).toHaveLength(1)
      expect(received[0]).toMatchObject({
        method: "GET",
        url: "/sessions/current?v=1",
        headers: { "x-session-id": "s-user" }
      })
    })
  )

  it.effect("an envelope's data is the session", () =>
    Effect.gen(function* () {
      const result = yield* validateWith(SessionValidator.http({ url }), "s-envelope")
      expect(result).toEqual(Option.some(session))
    })
  )

  it.effect("an envelope with fields of its own beside (a request id) is still an envelope", () =>
    Effect.gen(function* () {
      const http = SessionValidator.http({ url })
      expect(yield* validateWith(http, "s-envelope-extra")).toEqual(Option.some(session))
      expect(yield* validateWith(http, "s-envelope-extra-denied")).toEqual(Option.none())
    })
  )

  it.effect("an envelope with error: null is a valid session", () =>
    Effect.gen(function* () {
      const result = yield* validateWith(SessionValidator.http({ url }), "s-error-null")
      expect(result).toEqual(Option.some(session))
    })
  )

  it.effect("any 2xx with SessionData (or an envelope of it) is a session, not only a 200", () =>
    Effect.gen(function* () {
      const http = SessionValidator.http({ url })
      expect(yield* validateWith(http, "s-201")).toEqual(Option.some(session))
      expect(yield* validateWith(http, "s-203-envelope")).toEqual(Option.some(session))
    })
  )

  it.effect("a status that says success, or is a word of the session's own, keeps it valid", () =>
    Effect.gen(function* () {
      const http = SessionValidator.http({ url })
      expect(yield* validateWith(http, "s-status-ok-text")).toEqual(Option.some(session))
      expect(Option.isSome(yield* validateWith(http, "s-status-word"))).toBe(true)
      expect(Option.isSome(yield* validateWith(http, "s-valid-true"))).toBe(true)
    })
  )

  it.effect.each(DENIED)("%s → None", (id) =>
    Effect.gen(function* () {
      expect(yield* validateWith(SessionValidator.http({ url }), id)).toEqual(Option.none())
    })
  )

  it.effect.each(UNAVAILABLE)("%s → unavailable (%s)", ([id, reason]) =>
    Effect.gen(function* () {
      received.length = 0
      const error = yield* Effect.flip(validateWith(SessionValidator.http({ url }), id))
      expect(error).toBeInstanceOf(SessionValidatorUnavailable)
      expect(error.reason).toBe(reason)
      expect(error.message).not.toContain(id)
      expect(received).toHaveLength(1) // no retry by default
    })
  )

  it.effect("a redirect is not followed: whoever answers there is not the auth service", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(validateWith(SessionValidator.http({ url }), "s-redirect"))
      expect(error).toBeInstanceOf(SessionValidatorUnavailable)
      expect(error.reason).toBe("Failure")
      expect(service.foreignCalls()).toBe(0)
    })
  )

  it.effect("a closed port → unavailable (Failure)", () =>
    Effect.gen(function* () {
      const closed = createServer()
      yield* Effect.promise(() => new Promise<void>((r) => closed.listen(0, "127.0.0.1", r)))
      const port = (closed.address() as AddressInfo).port
      yield* Effect.promise(() => new Promise((r) => closed.close(r)))
      const error = yield* Effect.flip(
        validateWith(SessionValidator.http({ url: `http://127.0.0.1:${port}/s` }), "s-user")
      )
      expect(error.reason).toBe("Failure")
    })
  )

  it.effect("no answer within the timeout → unavailable (Timeout)", () =>
    Effect.gen(function* () {
      const fiber = yield* fork(
        validateWith(SessionValidator.http({ url, timeout: "2 seconds" }), "s-slow")
      )
      // wait (on the real clock) until the request reached the service, then move the test clock
      yield* Effect.promise(async () => {
        while (!received.some((r) => r.headers["x-session-id"] === "s-slow")) {
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      })
      yield* TestClock.adjust("2 seconds")
      const exit = yield* Fiber.join(fiber).pipe(Effect.flip)
      expect(exit.reason).toBe("Timeout")
    })
  )

  it.effect("header, headers and retryAttempts options", () =>
    Effect.gen(function* () {
      received.length = 0
      const layer = SessionValidator.http({
        url,
        header: "X-Auth-Session",
        headers: { "X-Api-Key": "k" },
        retryAttempts: 1
      })
      expect(Option.isSome(yield* validateWith(layer, "s-user"))).toBe(true)
      expect(received[0]?.headers).toMatchObject({ "x-auth-session": "s-user", "x-api-key": "k" })
      expect(received[0]?.headers["x-session-id"]).toBeUndefined()
    })
  )

  it("rejects bad options at the call", () => {
    expect(() => SessionValidator.http({ url: "/relative" })).toThrow(TypeError)
    expect(() => SessionValidator.http({ url: "ftp://x/y" })).toThrow(/options\.url/)
    expect(() => SessionValidator.http({ url: "http://x", header: "" })).toThrow(/options\.header/)
    expect(() => SessionValidator.http({ url: "http://x", timeout: -1 })).toThrow(RangeError)
    expect(() => SessionValidator.http({ url: "http://x", retryAttempts: 1.5 })).toThrow(
      /retryAttempts/
    )
    expect(() => SessionValidator.http(null as never)).toThrow(TypeError)
  })
})

describe("requireAuth over SessionValidator.http, on a real server", () => {
  const me = Effect.map(CurrentUser, (user) => json({ id: user.user_id }))
  const routes = [{ method: "GET", path: "/me", handler: me.pipe(requireAuth()) }] as const

  it.effect.each(THROUGH_GUARD)("%s → %s", ([id, status, body]) =>
    Effect.gen(function* () {
      // built in the test's scope: the undici client lives as long as the server
      const validator = yield* Layer.build(
        SessionValidator.http({ url }).pipe(Layer.provide(NodeHttpClient.layerUndici))
      )
      yield* serveRoutes(routes, Layer.succeedContext(validator))
      const reply = yield* call("/me", { headers: { "X-Session-Id": id } })
      expect(reply.status).toBe(status)
      expect(reply.body).toEqual(body)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})
