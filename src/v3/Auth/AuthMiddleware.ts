/**
 * The guards as `HttpLayerRouter` middleware: layers that provide `CurrentUser` (or `AuthContext`)
 * to the routes they are provided to.
 *
 * @example
 * ```ts
 * import { HttpLayerRouter, HttpServerResponse } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 * import { AuthMiddleware, CurrentUser, SessionValidator } from "svc-sdk/v3/Auth"
 *
 * const Me = HttpLayerRouter.add(
 *   "GET",
 *   "/me",
 *   Effect.map(CurrentUser, (user) => HttpServerResponse.unsafeJson({ id: user.user_id }))
 * ).pipe(
 *   Layer.provide(AuthMiddleware.requireAuth().layer),
 *   Layer.provide(SessionValidator.memory({ "s-1": { user_id: "u1" } }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as Effect from "effect/Effect"
import type { AuthContext, CurrentUser } from "./CurrentUser.js"
import * as Guards from "./Guards.js"
import { SessionValidator } from "./SessionValidator.js"

/**
 * A middleware that provides `Provides` to its routes and needs a `SessionValidator` when its
 * layer is built.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthMiddleware<Provides> = HttpLayerRouter.Middleware<{
  provides: Provides
  handles: never
  error: never
  requires: never
  layerError: never
  layerRequires: SessionValidator
}>

const fromGuard = <Provides>(guard: Guards.AuthGuard<Provides>): AuthMiddleware<Provides> =>
  HttpLayerRouter.middleware<{ provides: Provides }>()(
    Effect.map(
      SessionValidator,
      (validator) => (effect) => Effect.provideService(guard(effect), SessionValidator, validator)
    )
  )

/**
 * `Guards.requireAuth` for `HttpLayerRouter`: provides `CurrentUser` and `AuthContext`.
 *
 * @since 0.1.0
 * @category middleware
 */
export const requireAuth = (
  options?: Guards.GuardOptions
): AuthMiddleware<CurrentUser | AuthContext> => fromGuard(Guards.requireAuth(options))

/**
 * `Guards.optionalAuth` for `HttpLayerRouter`: provides `AuthContext`.
 *
 * @since 0.1.0
 * @category middleware
 */
export const optionalAuth = (options?: Guards.GuardOptions): AuthMiddleware<AuthContext> =>
  fromGuard(Guards.optionalAuth(options))

/**
 * `Guards.requireUserType` for `HttpLayerRouter`: provides `CurrentUser` and `AuthContext`.
 *
 * @since 0.1.0
 * @category middleware
 */
export const requireUserType = (
  types: string | ReadonlyArray<string>,
  options?: Guards.GuardOptions
): AuthMiddleware<CurrentUser | AuthContext> => fromGuard(Guards.requireUserType(types, options))

/**
 * `Guards.requirePermission` for `HttpLayerRouter`: provides `CurrentUser` and `AuthContext`.
 *
 * @since 0.1.0
 * @category middleware
 */
export const requirePermission = (
  permission: string,
  options?: Guards.PermissionOptions
): AuthMiddleware<CurrentUser | AuthContext> =>
  fromGuard(Guards.requirePermission(permission, options))
