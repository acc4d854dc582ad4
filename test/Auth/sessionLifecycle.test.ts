/**
 * The session lifecycle at the guards (SPEC 6.6): `CurrentUser.session_id` is the id the request
 * presented, redacted everywhere, and a handler logs out with it; every answer of a route behind
 * `requireAuth`, `requireUserType` or `requirePermission` carries `Cache-Control: no-store` unless
 * the handler set one. On a real server. Shared: run on both Effect lines (lineKit.ts).
 */
import { inspect } from "node:util"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import {
  AuthContext,
  CurrentUser,
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType,
  SessionStore,
  SessionValidator
} from "../../src/v3/Auth/index.js"
import {
  call,
  HttpServerResponse,
  json,
  logfmtLines,
  type Route,
  ServerLayer,
  serveRoutes
} from "./lineKit.js"

/** A memory store, its validator, and the store itself for the handlers. */
const withStore = <A, E, R>(
  body: (
    sessions: SessionStore["Type"],
    validator: Layer.Layer<SessionValidator>
  ) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function* () {
    const sessions = yield* Effect.provide(SessionStore, SessionStore.layerMemory())
    const validator = SessionStore.validator.pipe(
      Layer.provide(Layer.succeed(SessionStore, sessions))
    )
    return yield* body(sessions, validator)
  })

describe("CurrentUser.session_id", () => {
  it.effect("is the id the request presented: a handler logs out with it, and never shows it", () =>
    withStore((sessions, validator) =>
      Effect.gen(function* () {
        const lines: Array<string> = []
        const shown: Array<string> = []
        const logout = Effect.gen(function* () {
          const user = yield* CurrentUser
          // what a careless handler might print or send: none of it holds the id
          shown.push(JSON.stringify(user), String(user), inspect(user, { depth: 5 }))
          shown.push(String(user.session_id), JSON.stringify({ id: user.session_id }))
          yield* Effect.logInfo("logging out", user)
          yield* sessions.revoke(user.session_id)
          return HttpServerResponse.empty({ status: 204 })
        }).pipe(Effect.orDie, Effect.provide(logfmtLines(lines)))
        const routes: ReadonlyArray<Route> = [
          { method: "DELETE", path: "/session", handler: logout.pipe(requireAuth()) },
          {
            method: "GET",
            path: "/me",
            handler: Effect.map(CurrentUser, (user) =>
              json({ user_id: user.user_id, same: Redacted.value(user.session_id) })
            ).pipe(requireAuth())
          }
        ]
        yield* serveRoutes(routes, validator)
        const id = Redacted.value(
          yield* sessions.create({ user_id: "u-out", email: "out@example.com" })
        )
        const other = Redacted.value(yield* sessions.create({ user_id: "u-out" }))
        const me = yield* call("/me", { headers: { "X-Session-Id": id } })
        expect(me.body).toEqual({ user_id: "u-out", same: id })
        expect(
          (yield* call("/session", { method: "DELETE", headers: { "X-Session-Id": id } })).status
        ).toBe(204)
        // that session is over; the user's other session is not
        expect((yield* call("/me", { headers: { "X-Session-Id": id } })).status).toBe(401)
        expect((yield* call("/me", { headers: { "X-Session-Id": other } })).status).toBe(200)
        expect(shown).toHaveLength(5)
        for (const text of [...shown, ...lines]) expect(text).not.toContain(id)
        expect(shown[0]).toContain('"session_id":"<redacted>"')
        expect(lines.join("\n")).toContain("logging out")
      }).pipe(Effect.provide(ServerLayer), Effect.scoped)
    )
  )

  it.effect("a session under two ids gives each request its own id", () =>
    Effect.gen(function* () {
      const session = { user_id: "u-twice" }
      const validator = SessionValidator.memory({ "s-first": session, "s-second": session })
      const routes: ReadonlyArray<Route> = [
        {
          method: "GET",
          path: "/id",
          handler: Effect.map(CurrentUser, (user) =>
            json({ id: Redacted.value(user.session_id) })
          ).pipe(requireAuth())
        },
        {
          method: "GET",
          path: "/maybe",
          handler: Effect.map(AuthContext, (context) =>
            json(context.is_guest ? { guest: true } : { id: Redacted.value(context.session_id) })
          ).pipe(optionalAuth())
        }
      ]
      yield* serveRoutes(routes, validator)
      for (const id of ["s-first", "s-second", "s-first"]) {
        expect((yield* call("/id", { headers: { "X-Session-Id": id } })).body).toEqual({ id })
        expect((yield* call("/maybe", { headers: { "X-Session-Id": id } })).body).toEqual({ id })
      }
      expect((yield* call("/maybe")).body).toEqual({ guest: true })
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})

describe("Cache-Control: no-store behind the guards", () => {
  const ok = Effect.succeed(json({ ok: true }))
  const routes: ReadonlyArray<Route> = [
    { method: "GET", path: "/auth", handler: ok.pipe(requireAuth()) },
    { method: "GET", path: "/ops", handler: ok.pipe(requireUserType("ops")) },
    { method: "GET", path: "/perm", handler: ok.pipe(requirePermission("posts:delete")) },
    { method: "GET", path: "/open", handler: ok.pipe(optionalAuth()) },
    { method: "GET", path: "/plain", handler: ok },
    {
      method: "GET",
      path: "/cached",
      handler: Effect.succeed(
        HttpServerResponse.setHeader(json({ ok: true }), "cache-control", "private, max-age=60")
      ).pipe(requireAuth())
    },
    { method: "GET", path: "/fails", handler: Effect.die(new Error("boom")).pipe(requireAuth()) },
    {
      method: "GET",
      path: "/failsOpen",
      handler: Effect.die(new Error("boom")).pipe(optionalAuth())
    }
  ]
  const validator = SessionValidator.memory({
    "s-user": { user_id: "u1", user_type: "user" },
    "s-ops": { user_id: "o1", user_type: "ops", permissions: ["posts:delete"] }
  })
  const cases: ReadonlyArray<readonly [string, string | undefined, number, string | undefined]> = [
    ["/auth", "s-user", 200, "no-store"],
    ["/auth", undefined, 401, "no-store"],
    ["/auth", "nope", 401, "no-store"],
    ["/ops", "s-ops", 200, "no-store"],
    ["/ops", "s-user", 403, "no-store"],
    ["/ops", undefined, 401, "no-store"],
    ["/perm", "s-user", 403, "no-store"],
    ["/perm", "s-ops", 200, "no-store"],
    ["/cached", "s-user", 200, "private, max-age=60"],
    ["/cached", undefined, 401, "no-store"],
    ["/fails", "s-user", 500, "no-store"],
    ["/open", "s-user", 200, undefined],
    ["/open", undefined, 200, undefined],
    ["/plain", "s-user", 200, undefined],
    ["/failsOpen", "s-user", 500, undefined]
  ]

  it.effect("on every answer of a guarded route, unless the handler set its own", () =>
    Effect.gen(function* () {
      yield* serveRoutes(routes, validator)
      for (const [path, id, status, cacheControl] of cases) {
        const reply = yield* call(path, { headers: id === undefined ? {} : { "X-Session-Id": id } })
        expect([path, id, reply.status, reply.cacheControl]).toEqual([
          path,
          id,
          status,
          cacheControl
        ])
      }
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})
