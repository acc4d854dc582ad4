/**
 * `SessionValidator.http` against a real local auth service (node:http on 127.0.0.1, port 0).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import {
  CurrentUser,
  requireAuth,
  SessionValidator,
  SessionValidatorUnavailable
} from "../../src/v3/Auth/index.js"
import { recordingTracer } from "../support/recordingTracer.js"
import { call, ServerLayer, serve } from "./fixtures.js"

const session = { user_id: "u1", email: "u1@example.com", permissions: ["a"], team: "core" }

/** What the auth service answers, by session id. */
const answers: Record<string, { status: number; type?: string; body?: string }> = {
  "s-user": { status: 200, body: JSON.stringify(session) },
  "s-envelope": { status: 200, body: JSON.stringify({ success: true, data: session }) },
  "s-401": { status: 401, body: JSON.stringify({ error: "Invalid session" }) },
  "s-403": { status: 403, body: "" },
  "s-404": { status: 404, body: "" },
  "s-500": { status: 500, body: JSON.stringify({ error: "boom" }) },
  "s-503": { status: 503, body: "" },
  "s-400": { status: 400, body: "" },
  "s-204": { status: 204 },
  "s-bad": { status: 200, body: JSON.stringify({ email: "no id" }) },
  "s-text": { status: 200, type: "text/plain", body: "yes" },
  "s-array": { status: 200, body: JSON.stringify([session]) },
  // answers that deny the session in a 200's body: each must be an invalid session (fail closed)
  "s-expired": {
    status: 200,
    body: JSON.stringify({ success: false, error: "Session expired", data: { user_id: "u1" } })
  },
  "s-revoked": {
    status: 200,
    body: JSON.stringify({ success: false, message: "revoked", data: { user_id: "u1" } })
  },
  "s-error-only": {
    status: 200,
    body: JSON.stringify({ error: { code: "expired" }, data: { user_id: "u1" } })
  },
  "s-error-beside": { status: 200, body: JSON.stringify({ ...session, error: "expired" }) },
  "s-success-false": { status: 200, body: JSON.stringify({ ...session, success: false }) },
  "s-success-string": {
    status: 200,
    body: JSON.stringify({ success: "false", data: { user_id: "u1" } })
  },
  "s-success-null": { status: 200, body: JSON.stringify({ success: null, data: session }) },
  "s-nested-deny": {
    status: 200,
    body: JSON.stringify({ success: true, data: { ...session, success: false, error: "expired" } })
  },
  "s-jsend-error": {
    status: 200,
    body: JSON.stringify({ status: "error", message: "expired", data: session })
  },
  "s-status-401": { status: 200, body: JSON.stringify({ status: 401, data: session }) },
  "s-error-null": {
    status: 200,
    body: JSON.stringify({ success: true, data: session, error: null })
  }
}

let server: Server
let url: string
let foreignServer: Server
let foreign: string
let foreignCalls = 0
const received: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = []

beforeAll(async () => {
  server = createServer((request, response) => {
    received.push({
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers
    })
    const id = String(request.headers["x-session-id"] ?? request.headers["x-auth-session"] ?? "")
    if (id === "s-slow") return // never answers
    if (id === "s-redirect") {
      // to another origin, which answers with an admin's session to anyone
      response.writeHead(302, { location: `${foreign}/session` })
      return response.end()
    }
    const answer = answers[id] ?? { status: 404, body: "" }
    response.writeHead(answer.status, { "content-type": answer.type ?? "application/json" })
    response.end(answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sessions/current?v=1`
  foreignServer = createServer((_request, response) => {
    foreignCalls++
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ user_id: "foreign", user_type: "admin" }))
  })
  await new Promise<void>((resolve) => foreignServer.listen(0, "127.0.0.1", resolve))
  foreign = `http://127.0.0.1:${(foreignServer.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await new Promise((resolve) => foreignServer.close(resolve))
})

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
      const names = attributes.map(([key]) => key)
      expect(names).toContain("http.request.header.x-session-id")
      expect(names).toContain("http.request.header.x-auth-session")
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

  it.effect("an envelope with error: null is a valid session", () =>
    Effect.gen(function* () {
      const result = yield* validateWith(SessionValidator.http({ url }), "s-error-null")
      expect(result).toEqual(Option.some(session))
    })
  )

  it.effect.each([
    "s-401",
    "s-403",
    "s-404",
    "s-unknown",
    "s-expired",
    "s-revoked",
    "s-error-only",
    "s-error-beside",
    "s-success-false",
    "s-success-string",
    "s-success-null",
    "s-nested-deny",
    "s-jsend-error",
    "s-status-401"
  ])("%s → None", (id) =>
    Effect.gen(function* () {
      expect(yield* validateWith(SessionValidator.http({ url }), id)).toEqual(Option.none())
    })
  )

  it.effect.each([
    ["s-500", "Failure"],
    ["s-503", "Failure"],
    ["s-400", "Failure"],
    ["s-204", "InvalidResponse"],
    ["s-bad", "InvalidResponse"],
    ["s-text", "InvalidResponse"],
    ["s-array", "InvalidResponse"]
  ] as const)("%s → unavailable (%s)", ([id, reason]) =>
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
      expect(foreignCalls).toBe(0)
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
      const fiber = yield* Effect.fork(
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
  const me = Effect.map(CurrentUser, (user) => HttpServerResponse.unsafeJson({ id: user.user_id }))
  const app = HttpRouter.empty.pipe(
    HttpRouter.get("/me", me.pipe(requireAuth())),
    HttpRouter.toHttpApp
  )

  it.scoped.each([
    ["s-user", 200, { id: "u1" }],
    ["s-envelope", 200, { id: "u1" }],
    ["s-expired", 401, { error: "Invalid session" }],
    ["s-revoked", 401, { error: "Invalid session" }],
    ["s-error-only", 401, { error: "Invalid session" }],
    ["s-success-false", 401, { error: "Invalid session" }],
    ["s-500", 500, { error: "Authentication service unavailable" }]
  ] as const)("%s → %s", ([id, status, body]) =>
    Effect.gen(function* () {
      // built in the test's scope: the undici client lives as long as the server
      const validator = yield* Layer.build(
        SessionValidator.http({ url }).pipe(Layer.provide(NodeHttpClient.layerUndici))
      )
      yield* serve(Effect.flatten(app), Layer.succeedContext(validator))
      const reply = yield* call("/me", { headers: { "X-Session-Id": id } })
      expect(reply.status).toBe(status)
      expect(reply.body).toEqual(body)
    }).pipe(Effect.provide(ServerLayer))
  )
})
