/**
 * Guards composed in any order, router-wide and as `AuthMiddleware` on the line's router of layers
 * (`HttpLayerRouter` on Effect 3, `HttpRouter` on Effect 4): the validator is asked once per
 * request (SPEC 6.1), counted by a probe validator. Shared: run on both Effect lines (lineKit.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  AuthContext,
  AuthMiddleware,
  CurrentUser,
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType,
  SessionValidator
} from "../../src/v3/Auth/index.js"
import {
  call,
  HttpServerRequest,
  type HttpServerResponse,
  json,
  LayerRouter,
  makeProbe,
  type Probe,
  probeValidator,
  type Route,
  requestOf,
  SESSIONS,
  ServerLayer,
  serveRoutes,
  serveRoutesBehindRequireAuth,
  serviceKey,
  text
} from "./lineKit.js"

const reached = Effect.gen(function* () {
  const user = yield* CurrentUser
  const context = yield* AuthContext
  return json({ id: user.user_id, same: context === user })
})

const orders = [
  {
    name: "requirePermission inside requireAuth",
    handler: reached.pipe(requirePermission("posts:delete"), requireAuth()),
    invalid: "Invalid session"
  },
  {
    name: "requireAuth inside requirePermission",
    handler: reached.pipe(requireAuth(), requirePermission("posts:delete")),
    invalid: "Invalid session"
  },
  {
    name: "requireUserType inside requirePermission",
    handler: reached.pipe(requireUserType(["ops"]), requirePermission("posts:delete")),
    invalid: "Invalid session"
  },
  {
    // optionalAuth lets the guest through, so the next guard finds an established guest
    name: "four guards, optionalAuth outermost",
    handler: reached.pipe(
      requireAuth(),
      requireUserType(["ops", "admin"]),
      requirePermission("posts:delete"),
      optionalAuth()
    ),
    invalid: "Authentication required"
  },
  {
    name: "four guards, optionalAuth innermost",
    handler: reached.pipe(
      optionalAuth(),
      requirePermission("posts:delete"),
      requireUserType(["ops", "admin"]),
      requireAuth()
    ),
    invalid: "Invalid session"
  }
] as const

const routes: ReadonlyArray<Route> = orders.map(({ handler }, index) => ({
  method: "GET",
  path: `/order/${index}`,
  handler
}))

describe("composition", () => {
  orders.forEach(({ name, invalid: invalidText }, index) => {
    it.effect(`${name}: one validator call, valid and invalid`, () =>
      Effect.gen(function* () {
        const probe = yield* makeProbe
        yield* serveRoutes(routes, probeValidator(probe))
        const ok = yield* call(`/order/${index}`, { headers: { "X-Session-Id": "s-ops" } })
        expect(ok.body).toEqual({ id: "o1", same: true })
        expect(probe.calls).toBe(1)
        const denied = yield* call(`/order/${index}`, { headers: { "X-Session-Id": "s-user" } })
        expect(denied.status).toBe(403)
        expect(probe.calls).toBe(2)
        const invalid = yield* call(`/order/${index}`, { headers: { "X-Session-Id": "nope" } })
        expect(invalid).toMatchObject({ status: 401, body: { error: invalidText } })
        expect(probe.calls).toBe(3)
      }).pipe(Effect.provide(ServerLayer), Effect.scoped)
    )
  })

  // HttpRouter.use(requireAuth()) on Effect 3, AuthMiddleware.requireAuth()'s layer on Effect 4
  it.effect("router-wide requireAuth() with a guard on one route", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutesBehindRequireAuth(
        [
          { method: "GET", path: "/me", handler: reached },
          {
            method: "DELETE",
            path: "/posts/:id",
            handler: reached.pipe(requirePermission("posts:delete"))
          }
        ],
        probeValidator(probe)
      )
      expect(yield* call("/me")).toMatchObject({
        status: 401,
        body: { error: "Session ID required" }
      })
      expect(yield* call("/me", { headers: { "X-Session-Id": "s-user" } })).toMatchObject({
        status: 200,
        body: { id: "u1", same: true }
      })
      expect(probe.calls).toBe(1)
      const deleted = yield* call("/posts/1", {
        method: "DELETE",
        headers: { "X-Session-Id": "s-ops" }
      })
      expect(deleted).toMatchObject({ status: 200, body: { id: "o1" } })
      expect(probe.calls).toBe(2)
      const refused = yield* call("/posts/1", {
        method: "DELETE",
        headers: { "X-Session-Id": "s-user" }
      })
      expect(refused).toMatchObject({
        status: 403,
        body: { error: "Permission required: posts:delete" }
      })
      expect(probe.calls).toBe(3)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})

describe("an inner guard behind one that established the request", () => {
  it.effect("keeps its own sources and cross-site check; the same id is validated once", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutes(
        [
          {
            method: "GET",
            path: "/query-off",
            handler: reached.pipe(requireAuth({ query: false }), optionalAuth())
          },
          {
            method: "DELETE",
            path: "/checked",
            handler: reached.pipe(requireAuth(), optionalAuth({ csrf: false }))
          },
          {
            method: "GET",
            path: "/other-header",
            handler: reached.pipe(
              requireAuth({ header: "X-Other", cookie: false, query: false }),
              optionalAuth()
            )
          }
        ],
        probeValidator(probe)
      )
      // the outer guard took the id from the query, which the inner one does not read
      expect(yield* call("/query-off?session_id=s-user")).toMatchObject({
        status: 401,
        body: { error: "Session ID required" }
      })
      // the outer guard does not check cross-site requests; the inner one does
      expect(
        yield* call("/checked", {
          method: "DELETE",
          headers: {
            cookie: "session_id=s-user",
            origin: "https://evil.example",
            "sec-fetch-site": "cross-site"
          }
        })
      ).toMatchObject({ status: 403, body: { error: "Cross-site request refused" } })
      // the inner guard reads its own header only
      expect(yield* call("/other-header", { headers: { "X-Session-Id": "s-user" } })).toMatchObject(
        { status: 401 }
      )
      expect(yield* call("/other-header", { headers: { "X-Other": "s-ops" } })).toMatchObject({
        status: 200,
        body: { id: "o1" }
      })
      // where both guards read the same id, it is validated once
      const before = probe.calls
      expect(yield* call("/query-off", { headers: { "X-Session-Id": "s-user" } })).toMatchObject({
        status: 200,
        body: { id: "u1" }
      })
      expect(probe.calls - before).toBe(1)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})

describe("a CurrentUser the application provides itself", () => {
  // only a user these guards made from a validator's answer counts as established: an app's own
  // CurrentUser (a test layer, a "system" user) never lets a request past a guard unvalidated
  const provided = SESSIONS["s-ops"]!
  const user = {
    user_id: provided.user_id,
    session: provided,
    session_id: Redacted.make("s-ops"),
    is_guest: false
  } as const
  const request = requestOf(
    new Request("http://localhost/posts/1", { headers: { "X-Session-Id": "s-user" } })
  )
  const run = (
    guarded: Effect.Effect<
      HttpServerResponse.HttpServerResponse,
      never,
      CurrentUser | AuthContext | SessionValidator | HttpServerRequest.HttpServerRequest
    >
  ) =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      const response = yield* guarded.pipe(
        Effect.provideService(CurrentUser, user),
        Effect.provideService(AuthContext, user),
        Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Effect.provide(probeValidator(probe))
      )
      return { status: response.status, calls: probe.calls }
    })

  it.effect("is not trusted: the guard validates the request's own session", () =>
    Effect.gen(function* () {
      // "s-ops" may delete posts; the request's own session, "s-user", may not
      expect(yield* run(reached.pipe(requirePermission("posts:delete")))).toEqual({
        status: 403,
        calls: 1
      })
      expect(yield* run(reached.pipe(requirePermission("posts:read")))).toEqual({
        status: 200,
        calls: 1
      })
    })
  )
})

/** Where a guard leaves its resolution for the guards it wraps (the library's own key). */
const Established = serviceKey("svc-sdk/Auth/EstablishedResolution")

describe("a copy of a guard's own user", () => {
  // the guard's user carries a brand no copy has: a copy with a field changed (its permissions
  // raised), provided for a request with the same id, is validated afresh, not trusted
  it.effect("is not trusted: the guard validates the request's own session", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      const request = requestOf(
        new Request("http://localhost/posts/1", { headers: { "X-Session-Id": "s-user" } })
      )
      const withRequest = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        effect.pipe(
          Effect.provideService(HttpServerRequest.HttpServerRequest, request),
          Effect.provide(probeValidator(probe))
        )
      const captured = yield* withRequest(CurrentUser.pipe(requireAuth()))
      if (!("session_id" in captured)) throw new Error("the guard refused the request")
      expect(captured.session.permissions).not.toContain("posts:delete")
      const raised = {
        ...captured,
        session: { ...captured.session, permissions: ["posts:delete"] }
      }
      const before = probe.calls
      const response = yield* withRequest(
        reached.pipe(
          requirePermission("posts:delete"),
          Effect.provideService(CurrentUser, raised),
          Effect.provideService(AuthContext, raised)
        )
      )
      expect(response.status).toBe(403)
      expect(probe.calls - before).toBe(1)
      // nor can the user itself be changed, or the maker of users reached through it
      expect(Object.isFrozen(captured)).toBe(true)
      expect(() => Object.assign(captured, { session: raised.session })).toThrow(TypeError)
      expect(captured.constructor).toBe(Object)
      expect(Object.getPrototypeOf(captured)).toBe(Object.prototype)
    })
  )

  it.effect("a user kept from an earlier request is not trusted on a later one", () =>
    Effect.gen(function* () {
      // one session, revoked between the two requests
      let live = true
      let calls = 0
      const validator = Layer.succeed(SessionValidator, {
        validate: () =>
          Effect.sync(() => {
            calls++
            return live
              ? Option.some({ user_id: "u1", permissions: ["posts:delete"] })
              : Option.none()
          })
      })
      const requestFor = () =>
        requestOf(
          new Request("http://localhost/posts/1", { headers: { "X-Session-Id": "s-kept" } })
        )
      const kept = yield* CurrentUser.pipe(
        requireAuth(),
        Effect.provideService(HttpServerRequest.HttpServerRequest, requestFor()),
        Effect.provide(validator)
      )
      if (!("session_id" in kept)) throw new Error("the guard refused the request")
      live = false
      const response = yield* reached.pipe(
        requirePermission("posts:delete"),
        Effect.provideService(CurrentUser, kept),
        Effect.provideService(AuthContext, kept),
        Effect.provideService(HttpServerRequest.HttpServerRequest, requestFor()),
        Effect.provide(validator)
      )
      expect(response.status).toBe(401)
      expect(calls).toBe(2)
    })
  )

  it.effect("a resolution in the context that changes between reads is not trusted", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      const request = requestOf(
        new Request("http://localhost/posts/1", { headers: { "X-Session-Id": "s-user" } })
      )
      // where the guards look for an earlier guard's resolution: "Missing" when checked, then a
      // user who may delete posts
      let reads = 0
      const forged = {
        get _tag() {
          return reads++ === 0 ? "Missing" : "Authenticated"
        },
        user: {
          user_id: "mallory",
          session: { user_id: "mallory", permissions: ["posts:delete"] },
          session_id: Redacted.make("s-user"),
          is_guest: false
        }
      }
      const response = yield* reached.pipe(
        requirePermission("posts:delete"),
        Effect.provideService(Established, forged),
        Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Effect.provide(probeValidator(probe))
      )
      expect(response.status).toBe(403)
      expect(probe.calls).toBe(1)
    })
  )

  it.effect("a verdict every request shares cannot be rewritten by a handler", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      // an optionalAuth handler sees the shared "Invalid" resolution of an unknown id
      const request = requestOf(
        new Request("http://localhost/posts/1", { headers: { "X-Session-Id": "s-unknown" } })
      )
      // what the guard established, and the guest it provides: each write to them refused
      const rewrites = Effect.gen(function* () {
        const refused: Array<string> = []
        const established = yield* Effect.serviceOption(Established)
        const guest = yield* AuthContext
        for (const [name, service] of [
          ["established", Option.getOrThrow(established)],
          ["guest", guest]
        ] as const) {
          try {
            Object.assign(service as object, { _tag: "Authenticated", is_guest: false })
          } catch (error) {
            if (error instanceof TypeError) refused.push(name)
          }
        }
        return refused
      })
      const refused = yield* rewrites.pipe(
        optionalAuth(),
        Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Effect.provide(probeValidator(probe))
      )
      expect(refused).toEqual(["established", "guest"])
      const response = yield* reached.pipe(
        requirePermission("posts:read"),
        Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Effect.provide(probeValidator(probe))
      )
      expect(response.status).toBe(401)
    })
  )
})

describe("AuthMiddleware on the line's router of layers", () => {
  const serveLayer = (probe: Probe) => {
    const Me = LayerRouter.add("GET", "/me", reached).pipe(
      Layer.provide(AuthMiddleware.requireAuth().layer)
    )
    const Feed = LayerRouter.add(
      "GET",
      "/feed",
      Effect.map(AuthContext, (context) => json({ guest: context.is_guest }))
    ).pipe(Layer.provide(AuthMiddleware.optionalAuth().layer))
    const Admin = LayerRouter.add("GET", "/admin", reached).pipe(
      Layer.provide(AuthMiddleware.requireUserType(["admin"]).layer)
    )
    const Remove = LayerRouter.add(
      "DELETE",
      "/posts/:id",
      reached.pipe(requirePermission("posts:delete"))
    ).pipe(Layer.provide(AuthMiddleware.requireAuth().layer))
    const Deny = LayerRouter.add("DELETE", "/drafts/:id", reached).pipe(
      Layer.provide(AuthMiddleware.requirePermission("drafts:delete").layer)
    )
    const Open = LayerRouter.add("GET", "/open", text("open"))
    return LayerRouter.serve(Layer.mergeAll(Me, Feed, Admin, Remove, Deny, Open), {
      disableLogger: true,
      disableListenLog: true
    }).pipe(Layer.provide(probeValidator(probe)), Layer.build)
  }

  it.effect("provides CurrentUser, answers with the pinned errors, one call per request", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveLayer(probe)
      expect(yield* call("/me")).toMatchObject({
        status: 401,
        body: { error: "Session ID required" }
      })
      expect(yield* call("/me", { headers: { "X-Session-Id": "s-user" } })).toMatchObject({
        status: 200,
        body: { id: "u1", same: true }
      })
      expect(yield* call("/feed")).toMatchObject({ status: 200, body: { guest: true } })
      expect(yield* call("/feed", { headers: { "X-Session-Id": "s-user" } })).toMatchObject({
        body: { guest: false }
      })
      expect(yield* call("/admin", { headers: { "X-Session-Id": "s-user" } })).toMatchObject({
        status: 403,
        body: { error: "Insufficient permissions. Required user types: admin" }
      })
      expect(probe.calls).toBe(3)
      const removed = yield* call("/posts/1", {
        method: "DELETE",
        headers: { "X-Session-Id": "s-admin" }
      })
      expect(removed).toMatchObject({ status: 200, body: { id: "a1" } })
      expect(probe.calls).toBe(4)
      expect(
        yield* call("/drafts/1", { method: "DELETE", headers: { "X-Session-Id": "s-ops" } })
      ).toMatchObject({ status: 403, body: { error: "Permission required: drafts:delete" } })
      expect(probe.calls).toBe(5)
      expect(yield* call("/open")).toMatchObject({ status: 200, body: "open" })
      expect(probe.calls).toBe(5)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})
