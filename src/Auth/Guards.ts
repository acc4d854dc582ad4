/**
 * Guards for `effect/http` apps: they read the session id, validate it and provide the user to
 * the handler, or answer with the pinned error responses.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Headers from "effect/http/Headers"
import type * as HttpServerRequest from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import { guardsOf } from "../common/guards.js"
import { type GuardOptionsOf, type PermissionOptionsOf, tokenOption } from "../core/authOptions.js"
import * as rules from "../core/authRules.js"
import { DEFAULT_SESSION_HEADER } from "../core/http.js"
import { auth } from "../internal/auth.js"
import { AuthContext, CurrentUser } from "./CurrentUser.js"
import type { SessionData } from "./SessionData.js"
import { SessionValidator } from "./SessionValidator.js"

/**
 * Where the session id is read and how long the validator may take. Checked when the guard is
 * made: a bad option throws a `TypeError`/`RangeError` naming it.
 *
 * @since 0.1.0
 * @category models
 */
export interface GuardOptions extends GuardOptionsOf<Duration.Input> {}

/**
 * @since 0.1.0
 * @category models
 */
export interface PermissionOptions extends PermissionOptionsOf<Duration.Input, SessionData> {}

/** @internal This line's guards, made once: every guard and middleware shares one resolution per request. */
export const guards = /*#__PURE__*/ guardsOf<
  SessionData,
  HttpServerResponse.HttpServerResponse,
  SessionValidator | HttpServerRequest.HttpServerRequest,
  CurrentUser | AuthContext,
  AuthContext
>(auth, { validator: SessionValidator, currentUser: CurrentUser, authContext: AuthContext })

/**
 * A guard: an `HttpMiddleware` that removes `Provides` from the handler's requirements and adds
 * `SessionValidator` and `HttpServerRequest`. Usable as `handler.pipe(guard)`; for a whole router,
 * provide the `AuthMiddleware` form to its routes.
 *
 * @since 0.1.0
 * @category models
 */
export type AuthGuard<Provides> = <A, E, R>(
  self: Effect.Effect<A, E, R>
) => Effect.Effect<
  A | HttpServerResponse.HttpServerResponse,
  E,
  Exclude<R, Provides> | SessionValidator | HttpServerRequest.HttpServerRequest
>

/**
 * Lets only requests with a valid session through and provides `CurrentUser` and `AuthContext`.
 * No id → 401 `Session ID required`; malformed or invalid id → 401 `Invalid session`; validator
 * failed or timed out → 500 `Authentication service unavailable`; a cross-site request that
 * changes state with a cookie or query id → 403 `Cross-site request refused` (see
 * {@link GuardOptions.csrf}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpRouter, HttpServerResponse } from "effect/http"
 * import { CurrentUser, requireAuth } from "svc-sdk/Auth"
 *
 * const me = Effect.gen(function* () {
 *   const user = yield* CurrentUser
 *   return yield* HttpServerResponse.json({ id: user.user_id, email: user.session.email })
 * })
 * const Me = HttpRouter.add("GET", "/me", me.pipe(requireAuth()))
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const requireAuth: (options?: GuardOptions) => AuthGuard<CurrentUser | AuthContext> =
  guards.requireAuth

/**
 * Never rejects: provides `AuthContext`, the user when the session is valid, `{ is_guest: true }`
 * when the id is absent, invalid, the validator is unavailable, or the request is cross-site and
 * changes state with a cookie or query id (its session is not used).
 *
 * @since 0.1.0
 * @category guards
 */
export const optionalAuth: (options?: GuardOptions) => AuthGuard<AuthContext> = guards.optionalAuth

/**
 * `requireAuth`, then the user's `user_type` must be `types` (one type) or one of `types` (a list),
 * else 403 `Insufficient permissions. Required user types: <types joined by ", ">`. Behind a guard
 * that let a guest through, 401 `Authentication required`. Throws at once for an empty list or an
 * empty type.
 *
 * @example
 * ```ts
 * import { HttpServerResponse } from "effect/http"
 * import { Effect } from "effect"
 * import { requireUserType } from "svc-sdk/Auth"
 *
 * const admins = Effect.succeed(HttpServerResponse.text("hi")).pipe(requireUserType("admin"))
 * const staff = Effect.succeed(HttpServerResponse.text("hi")).pipe(requireUserType(["admin", "ops"]))
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const requireUserType: (
  types: string | ReadonlyArray<string>,
  options?: GuardOptions
) => AuthGuard<CurrentUser | AuthContext> = guards.requireUserType

/**
 * `requireAuth`, then the session's `permissions` must include `permission` (administrators always
 * pass), else 403 `Permission required: <permission>`. Behind a guard that let a guest through,
 * 401 `Authentication required`. Throws at once for an empty permission.
 *
 * @since 0.1.0
 * @category guards
 */
export const requirePermission: (
  permission: string,
  options?: PermissionOptions
) => AuthGuard<CurrentUser | AuthContext> = guards.requirePermission

/**
 * The default administrator test of `requirePermission`: `user_type === "admin"`.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isAdministrator: (session: SessionData) => boolean = rules.isAdministrator

/**
 * Adds the session header (default `X-Session-Id`) to `effect/http`'s redacted header names
 * (`Headers.CurrentRedactedNames`), so that the server's spans record it as `<redacted>`: provide
 * it to `HttpRouter.serve(...)` or `HttpServer.serve(...)` in a server that records request headers
 * in its spans (Effect 4 records none unless `HttpMiddleware.TracerHeaderFilter` lets them in).
 * Cookies are redacted already.
 *
 * @example
 * ```ts
 * import { HttpRouter } from "effect/http"
 * import { Layer } from "effect"
 * import { layerRedactSessionHeader } from "svc-sdk/Auth"
 *
 * declare const Routes: Layer.Layer<never, never, HttpRouter.HttpRouter>
 * const Server = HttpRouter.serve(Routes).pipe(Layer.provide(layerRedactSessionHeader()))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRedactSessionHeader = (options?: {
  readonly header?: string | undefined
}): Layer.Layer<never> => {
  const header = tokenOption(
    "layerRedactSessionHeader: options.header",
    options?.header,
    DEFAULT_SESSION_HEADER,
    "header"
  )
  return Layer.effect(
    Headers.CurrentRedactedNames,
    Effect.map(Effect.service(Headers.CurrentRedactedNames), (names) => [
      ...names,
      header.toLowerCase()
    ])
  )
}
