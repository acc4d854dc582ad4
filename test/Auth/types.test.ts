/**
 * The type system shows the rule: a handler asking for `CurrentUser` does not type-check as a
 * servable app without a guard, and does with one (also router-wide and with HttpLayerRouter).
 */
import {
  type HttpApp,
  type HttpBody,
  HttpLayerRouter,
  type HttpMiddleware,
  HttpRouter,
  HttpServer,
  HttpServerResponse
} from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform/HttpServerRequest"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
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

const me = Effect.gen(function* () {
  const user = yield* CurrentUser
  return yield* HttpServerResponse.json({ id: user.user_id, email: user.session.email })
})
const feed = Effect.map(AuthContext, (context) =>
  HttpServerResponse.unsafeJson({ guest: context.is_guest })
)

/** What a server can run once a validator is provided. */
type Servable = HttpApp.Default<unknown, SessionValidator | HttpServerRequest>

const Validator = SessionValidator.memory({})

describe("types", () => {
  it("a handler that needs CurrentUser is not servable without a guard", () => {
    // @ts-expect-error CurrentUser is not provided
    const unguarded: Servable = me
    // @ts-expect-error optionalAuth provides AuthContext only, not CurrentUser
    const optional: Servable = me.pipe(optionalAuth())
    const guarded: Servable = me.pipe(requireAuth())
    const byType: Servable = me.pipe(requireUserType(["admin"]))
    const byPermission: Servable = me.pipe(requirePermission("x"))
    const guest: Servable = feed.pipe(optionalAuth())
    expect([unguarded, optional, guarded, byType, byPermission, guest]).toHaveLength(6)
  })

  it("serving: the server layer requires CurrentUser without a guard, SessionValidator with one", () => {
    const unguarded = HttpServer.serve(me)
    expectTypeOf(unguarded).toEqualTypeOf<
      Layer.Layer<never, never, HttpServer.HttpServer | CurrentUser>
    >()
    const guarded = HttpServer.serve(me.pipe(requireAuth()))
    expectTypeOf(guarded).toEqualTypeOf<
      Layer.Layer<never, never, HttpServer.HttpServer | SessionValidator>
    >()
    expect(guarded).toBeDefined()
  })

  it("a guard's result type removes CurrentUser | AuthContext and adds the validator", () => {
    const guarded = me.pipe(requireAuth())
    expectTypeOf(guarded).toEqualTypeOf<
      Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        HttpBody.HttpBodyError,
        SessionValidator | HttpServerRequest
      >
    >()
    const optional = feed.pipe(optionalAuth())
    expectTypeOf(optional).toEqualTypeOf<
      Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        never,
        SessionValidator | HttpServerRequest
      >
    >()
    expect(guarded).toBeDefined()
  })

  it("guards are HttpMiddleware and work with HttpRouter.use", () => {
    const middleware: HttpMiddleware.HttpMiddleware = requireAuth()
    const router = HttpRouter.empty.pipe(HttpRouter.get("/me", me))
    expectTypeOf(router).toEqualTypeOf<HttpRouter.HttpRouter<HttpBody.HttpBodyError, CurrentUser>>()
    const guarded = router.pipe(HttpRouter.use(requireAuth()))
    expectTypeOf(guarded).toEqualTypeOf<
      HttpRouter.HttpRouter<HttpBody.HttpBodyError, SessionValidator>
    >()
    const providedWithoutGuard = router.pipe(
      HttpRouter.toHttpApp,
      Effect.flatten,
      Effect.provide(Validator)
    )
    // @ts-expect-error a validator does not stand in for the guard
    const stillNeedsUser: Servable = providedWithoutGuard
    expect([middleware, stillNeedsUser]).toHaveLength(2)
  })

  it("HttpLayerRouter: the middleware layer provides CurrentUser to its routes", () => {
    const route = HttpLayerRouter.add("GET", "/me", me)
    const unguarded = HttpLayerRouter.serve(route)
    expectTypeOf<
      Extract<Layer.Layer.Context<typeof unguarded>, CurrentUser>
    >().toEqualTypeOf<CurrentUser>()
    const guarded = HttpLayerRouter.serve(
      route.pipe(Layer.provide(AuthMiddleware.requireAuth().layer))
    )
    expectTypeOf<Layer.Layer.Context<typeof guarded>>().toEqualTypeOf<
      HttpServer.HttpServer | SessionValidator
    >()
    const runnable: Layer.Layer<never, unknown, HttpServer.HttpServer> = guarded.pipe(
      Layer.provide(Validator)
    )
    // @ts-expect-error without the middleware, CurrentUser is still missing
    const missing: Layer.Layer<never, unknown, HttpServer.HttpServer> = unguarded.pipe(
      Layer.provide(Validator)
    )
    expect([runnable, missing]).toHaveLength(2)
  })
})
