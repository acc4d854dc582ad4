/**
 * Security item 1: a validator's answer with `__proto__`, `constructor` or `prototype` keys never
 * grants a user type or a permission. Guards read only the session's own, decoded fields (SPEC 6.4).
 * Shared: run on both Effect lines (lineKit.ts).
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import fc from "fast-check"
import {
  CurrentUser,
  requirePermission,
  requireUserType,
  SessionData,
  SessionValidator
} from "../../src/v3/Auth/index.js"
import {
  call,
  HttpServerRequest,
  json,
  NodeHttpClient,
  type Route,
  ServerLayer,
  serveRoutes,
  toWebHandler
} from "./lineKit.js"

const ESCALATION = '{"user_id":"m","__proto__":{"user_type":"admin","permissions":["x"]}}'

const reached = Effect.map(CurrentUser, (user) =>
  json({
    id: user.user_id,
    type: user.session.user_type ?? null,
    permissions: user.session.permissions ?? null
  })
)

const admin = reached.pipe(requireUserType(["admin"]))
const permitted = reached.pipe(requirePermission("x"))
const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/admin", handler: admin },
  { method: "GET", path: "/x", handler: permitted }
]
/** The same two routes as one app, for the web handler of the property. */
const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  request.url.startsWith("/admin") ? admin : permitted
)

/** A fresh `JSON.parse` of `text` per lookup, as an auth service's answer would be. */
const answering = (text: string) =>
  SessionValidator.fromPromise(async () => JSON.parse(text) as SessionData)

describe("prototype keys in a validator's answer (security item 1)", () => {
  it("SessionData decoding drops __proto__, constructor and prototype keys", () => {
    const decoded = Schema.decodeUnknownSync(SessionData)(
      JSON.parse(
        '{"user_id":"m","__proto__":{"user_type":"admin"},"constructor":{"a":1},"prototype":2,"team":"t"}'
      )
    )
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype)
    expect(decoded.user_type).toBeUndefined()
    expect(Object.keys(decoded).sort()).toEqual(["team", "user_id"])
  })

  it.effect(
    "fromPromise: the escalation answer is a plain user (403 for type and permission)",
    () =>
      Effect.gen(function* () {
        yield* serveRoutes(routes, answering(ESCALATION))
        const admin = yield* call("/admin", { headers: { "X-Session-Id": "s-1" } })
        expect(admin.status).toBe(403)
        expect(admin.body).toEqual({
          error: "Insufficient permissions. Required user types: admin"
        })
        const permission = yield* call("/x", { headers: { "X-Session-Id": "s-1" } })
        expect(permission.status).toBe(403)
        expect(permission.body).toEqual({ error: "Permission required: x" })
      }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )

  it.effect("a validator of the app's own handing over an object with a polluted prototype", () =>
    Effect.gen(function* () {
      const polluted = Object.create({ user_type: "admin", permissions: ["x"] }) as SessionData
      Object.assign(polluted, { user_id: "m" })
      yield* serveRoutes(
        routes,
        Layer.succeed(SessionValidator, { validate: () => Effect.succeed(Option.some(polluted)) })
      )
      expect((yield* call("/admin", { headers: { "X-Session-Id": "s-1" } })).status).toBe(403)
      expect((yield* call("/x", { headers: { "X-Session-Id": "s-1" } })).status).toBe(403)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )

  it.effect("own fields still grant what they say", () =>
    Effect.gen(function* () {
      yield* serveRoutes(
        routes,
        answering('{"user_id":"a","user_type":"admin","__proto__":{"user_type":"user"}}')
      )
      const admin = yield* call("/admin", { headers: { "X-Session-Id": "s-1" } })
      expect(admin.status).toBe(200)
      expect(admin.body).toEqual({ id: "a", type: "admin", permissions: null })
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )

  describe("SessionValidator.http, against a real auth service", () => {
    let auth: Server
    let url = ""
    beforeAll(async () => {
      auth = createServer((_request, response) => {
        response.writeHead(200, { "content-type": "application/json" })
        response.end(ESCALATION)
      })
      await new Promise<void>((resolve) => auth.listen(0, "127.0.0.1", resolve))
      url = `http://127.0.0.1:${(auth.address() as AddressInfo).port}/session`
    })
    afterAll(() => new Promise<void>((resolve) => auth.close(() => resolve())))

    it.effect("the escalation answer is a plain user", () =>
      Effect.gen(function* () {
        // the undici pool lives as long as the test, not just while the server starts
        const undici = yield* Layer.build(NodeHttpClient.layerUndici)
        yield* serveRoutes(
          routes,
          SessionValidator.http({ url }).pipe(Layer.provide(Layer.succeedContext(undici)))
        )
        const admin = yield* call("/admin", { headers: { "X-Session-Id": "s-1" } })
        expect(admin.status).toBe(403)
        const permission = yield* call("/x", { headers: { "X-Session-Id": "s-1" } })
        expect(permission.status).toBe(403)
      }).pipe(Effect.provide(ServerLayer), Effect.scoped)
    )
  })

  it("property: no answer without an own matching user_type or permission ever passes", async () => {
    // JSON text written field by field: an object literal or `fc.record` would turn a
    // `__proto__` key into a prototype, and `JSON.stringify` would then leave it out
    const member = (key: string, value: fc.Arbitrary<unknown>) =>
      value.map((v) => `${JSON.stringify(key)}:${JSON.stringify(v)}`)
    const type = fc.constantFrom("admin", "user", "x", "")
    const permissions = fc.array(fc.constantFrom("x", "y", "admin"), { maxLength: 3 })
    const object = (members: ReadonlyArray<fc.Arbitrary<string>>): fc.Arbitrary<Array<string>> =>
      fc
        .subarray([...members])
        .chain((chosen) =>
          chosen.length === 0 ? fc.constant<Array<string>>([]) : fc.tuple(...chosen)
        )
        .chain((texts) => fc.shuffledSubarray(texts, { minLength: texts.length }))
    const grants = [member("user_type", type), member("permissions", permissions)]
    const sneaky = object(grants).map((texts) => `{${texts.join(",")}}`)
    const prototypeKey = fc.constantFrom("__proto__", "constructor", "prototype")
    const answer = object([
      ...grants,
      member("team", fc.string({ maxLength: 6 })),
      fc.tuple(prototypeKey, sneaky).map(([key, value]) => `${JSON.stringify(key)}:${value}`),
      fc.tuple(prototypeKey, sneaky).map(([key, value]) => `${JSON.stringify(key)}:${value}`)
    ]).map((texts) => `{${['"user_id":"m"', ...texts].join(",")}}`)
    await fc.assert(
      fc.asyncProperty(answer, async (json) => {
        const own = JSON.parse(json) as Record<string, unknown>
        const ownType = Object.hasOwn(own, "user_type") ? own.user_type : undefined
        const ownPermissions = Object.hasOwn(own, "permissions") ? own.permissions : undefined
        const handler = toWebHandler(app.pipe(Effect.provide(answering(json))))
        const ask = async (path: string) =>
          (
            await handler(
              new Request(`http://localhost${path}`, { headers: { "x-session-id": "s" } })
            )
          ).status
        expect(await ask("/admin")).toBe(ownType === "admin" ? 200 : 403)
        const granted =
          ownType === "admin" ||
          (Array.isArray(ownPermissions) && (ownPermissions as Array<string>).includes("x"))
        expect(await ask("/x")).toBe(granted ? 200 : 403)
      }),
      { numRuns: 300 }
    )
  })
})
