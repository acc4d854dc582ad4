/**
 * The type system shows the rule on Effect 4: a handler asking for `CurrentUser` does not
 * type-check as a servable app without a guard, and does with one (also as `HttpRouter`
 * middleware).
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  type HttpBody,
  type HttpMiddleware,
  HttpRouter,
  HttpServer,
  type HttpServerRequest,
  HttpServerResponse
} from "effect/http"
import * as Layer from "effect/Layer"
import {
  AuthContext,
  AuthMiddleware,
  CurrentUser,
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType,
  SessionValidator
} from "../../../src/Auth/index.js"

const me = Effect.gen(function* () {
  const user = yield* CurrentUser
  return yield* HttpServerResponse.json({ id: user.user_id, email: user.session.email })
})
const feed = Effect.map(Effect.service(AuthContext), (context) =>
  HttpServerResponse.jsonUnsafe({ guest: context.is_guest })
)

/** What a server can run once a validator is provided. */
type Servable = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  unknown,
  SessionValidator | HttpServerRequest.HttpServerRequest
>

const Validator = SessionValidator.memory({})

describe("types (Effect 4)", () => {
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
    expectTypeOf<Layer.Services<typeof unguarded>>().toEqualTypeOf<
      HttpServer.HttpServer | CurrentUser
    >()
    const guarded = HttpServer.serve(me.pipe(requireAuth()))
    expectTypeOf<Layer.Services<typeof guarded>>().toEqualTypeOf<
      HttpServer.HttpServer | SessionValidator
    >()
    expect(guarded).toBeDefined()
  })

  it("a guard's result type removes CurrentUser | AuthContext and adds the validator", () => {
    const guarded = me.pipe(requireAuth())
    expectTypeOf(guarded).toEqualTypeOf<
      Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        HttpBody.HttpBodyError,
        SessionValidator | HttpServerRequest.HttpServerRequest
      >
    >()
    const optional = feed.pipe(optionalAuth())
    expectTypeOf(optional).toEqualTypeOf<
      Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        never,
        SessionValidator | HttpServerRequest.HttpServerRequest
      >
    >()
    expect(guarded).toBeDefined()
  })

  it("guards are HttpMiddleware", () => {
    const middleware: HttpMiddleware.HttpMiddleware = requireAuth()
    const optional: HttpMiddleware.HttpMiddleware = optionalAuth()
    expect([middleware, optional]).toHaveLength(2)
  })

  it("HttpRouter: the middleware layer provides CurrentUser to its routes", () => {
    const route = HttpRouter.add("GET", "/me", me)
    const unguarded = HttpRouter.serve(route)
    expectTypeOf<
      Extract<Layer.Services<typeof unguarded>, CurrentUser>
    >().toEqualTypeOf<CurrentUser>()
    const guarded = HttpRouter.serve(route.pipe(Layer.provide(AuthMiddleware.requireAuth().layer)))
    expectTypeOf<Layer.Services<typeof guarded>>().toEqualTypeOf<
      HttpServer.HttpServer | SessionValidator
    >()
    const runnable: Layer.Layer<never, unknown, HttpServer.HttpServer> = guarded.pipe(
      Layer.provide(Validator)
    )
    // @ts-expect-error without the middleware, CurrentUser is still missing
    const missing: Layer.Layer<never, unknown, HttpServer.HttpServer> = unguarded.pipe(
      Layer.provide(Validator)
    )
    const optional = HttpRouter.serve(
      HttpRouter.add("GET", "/feed", feed).pipe(Layer.provide(AuthMiddleware.optionalAuth().layer))
    )
    expectTypeOf<Layer.Services<typeof optional>>().toEqualTypeOf<
      HttpServer.HttpServer | SessionValidator
    >()
    expect([runnable, missing, optional]).toHaveLength(3)
  })
})
