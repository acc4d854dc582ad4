/**
 * The guards for `effect/http-api`: `HttpApiMiddleware.Service` middleware that provides
 * `CurrentUser` and `AuthContext` to the endpoints of an `HttpApi`, lists the session id's header,
 * cookie and query parameter as security schemes in the OpenAPI document, and answers with the
 * pinned statuses and `{"error": "..."}` bodies. Effect 4 has no optional middleware: an endpoint
 * open to guests uses {@link Optional}, which provides `AuthContext` (the user or the guest).
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
 * import { HttpApiAuth } from "svc-sdk/Auth"
 *
 * class CanDelete extends HttpApiAuth.RequirePermission<CanDelete>()("CanDelete", "products:delete") {}
 *
 * const Api = HttpApi.make("shop").add(
 *   HttpApiGroup.make("products")
 *     .add(HttpApiEndpoint.delete("remove", "/products/:id"))
 *     .middleware(CanDelete)
 *     .middleware(HttpApiAuth.Authentication)
 * )
 * // served with HttpApiAuth.layer(HttpApiAuth.Authentication) and HttpApiAuth.layerCheck(CanDelete)
 * ```
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { unhandled } from "effect/Types"
import { spanUserId } from "../common/guards.js"
import { CheckKey, type SchemeOptions, schemeSettings, schemesOf } from "../common/httpApiAuth.js"
import type { GuardSettings } from "../core/authOptions.js"
import {
  type Check,
  permissionCheck,
  type Rejection,
  type Resolution as ResolutionOf,
  rejection,
  userTypeCheck
} from "../core/authRules.js"
import { ErrorText } from "../core/authTexts.js"
import type { AuthContext, AuthenticatedUser, CurrentUser } from "./CurrentUser.js"
import { type GuardOptions, guards, type PermissionOptions } from "./Guards.js"
import { SessionValidator } from "./SessionValidator.js"

const { authContext, guardSettings, noStore, resolve, userContext } = guards

/** The outcome of looking at a request's session: what every later guard on it reuses. */
type Resolution = ResolutionOf<AuthenticatedUser>

/*
 * Each error's text is one of its pinned texts (SPEC 6.3): that is how an answer finds its status,
 * and what the OpenAPI document shows.
 */

/** An error's body, named as the OpenAPI document's schema (the same names as on Effect 3). */
const body = <Fields extends Schema.Struct.Fields>(identifier: string, fields: Fields) =>
  Schema.Struct(fields).annotate({ identifier })

/**
 * 401: `Session ID required`, `Invalid session` or `Authentication required`. Its body is exactly
 * `{"error": "..."}`.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unauthorized extends Schema.Class<Unauthorized>("svc-sdk.Auth.Unauthorized")(
  body("svc-sdk.Auth.Unauthorized", {
    error: Schema.Literals([
      ErrorText.sessionIdRequired,
      ErrorText.invalidSession,
      ErrorText.authenticationRequired
    ])
  }),
  { httpApiStatus: 401, description: "No valid session" }
) {
  /** For `Effect.catchTag`; not part of the body. */
  get _tag(): "Unauthorized" {
    return "Unauthorized"
  }
}

/**
 * 403: the user lacks the type or permission, or a cross-site request was refused.
 *
 * @since 0.1.0
 * @category errors
 */
export class Forbidden extends Schema.Class<Forbidden>("svc-sdk.Auth.Forbidden")(
  body("svc-sdk.Auth.Forbidden", {
    error: Schema.Union([
      Schema.Literal(ErrorText.crossSite),
      Schema.TemplateLiteral([ErrorText.userTypes([]), Schema.String]),
      Schema.TemplateLiteral([ErrorText.permission(""), Schema.String])
    ])
  }),
  { httpApiStatus: 403, description: "Not allowed for this user" }
) {
  /** For `Effect.catchTag`; not part of the body. */
  get _tag(): "Forbidden" {
    return "Forbidden"
  }
}

/**
 * 500: `Authentication service unavailable` (the validator failed or timed out).
 *
 * @since 0.1.0
 * @category errors
 */
export class AuthenticationUnavailable extends Schema.Class<AuthenticationUnavailable>(
  "svc-sdk.Auth.AuthenticationUnavailable"
)(
  body("svc-sdk.Auth.AuthenticationUnavailable", { error: Schema.Literal(ErrorText.unavailable) }),
  { httpApiStatus: 500, description: "The session could not be checked" }
) {
  /** For `Effect.catchTag`; not part of the body. */
  get _tag(): "AuthenticationUnavailable" {
    return "AuthenticationUnavailable"
  }
}

/** The errors of the middleware, each with its status: what `HttpApiMiddleware.Service` takes. */
const errors = [Unauthorized, Forbidden, AuthenticationUnavailable] as const

/**
 * Every refusal of the middleware, by status.
 *
 * @since 0.1.0
 * @category errors
 */
export const AuthError = Schema.Union(errors)

/**
 * @since 0.1.0
 * @category errors
 */
export type AuthError = typeof AuthError.Type

export type { SchemeOptions }

/**
 * The security schemes of an authentication middleware, by their OpenAPI names
 * (`header.X-Session-Id`, `cookie.session_id`, `query.session_id`), tried in this order.
 *
 * @since 0.1.0
 * @category models
 */
export type Schemes = Readonly<Record<string, HttpApiSecurity.ApiKey>>

/** What the middleware provides to the endpoints it wraps. */
type Provided = CurrentUser | AuthContext

/** The middleware of one security scheme, as `HttpApiBuilder` calls it. */
type SchemeMiddleware = HttpApiMiddleware.HttpApiMiddlewareSecurity<
  Schemes,
  Provided,
  typeof errors,
  never
>[string]

/** The middleware class these tags make, over the security schemes it declares. */
type MiddlewareClass<
  Self,
  Id extends string,
  Security extends Record<string, HttpApiSecurity.HttpApiSecurity>
> = HttpApiMiddleware.ServiceClass<
  Self,
  Id,
  {
    requires: never
    provides: Provided
    error: typeof errors
    clientError: never
    requiredForClient: false
    security: Security
  }
>

/**
 * The class {@link Tag} makes, to extend: `class Session extends HttpApiAuth.Tag<Session>()("Session") {}`.
 *
 * @since 0.1.0
 * @category models
 */
export type TagClass<Self, Id extends string> = MiddlewareClass<Self, Id, Schemes>

/**
 * Makes an authentication middleware: put it on an `HttpApiGroup` or `HttpApiEndpoint` with
 * `.middleware(...)`, implement it with {@link layer}. Its endpoints get `CurrentUser` and
 * `AuthContext`; the OpenAPI document lists its schemes and its 401, 403 and 500 answers.
 * `Authentication` is one with the default names.
 *
 * @example
 * ```ts
 * import { HttpApiAuth } from "svc-sdk/Auth"
 *
 * class Session extends HttpApiAuth.Tag<Session>()("Session", { query: false }) {}
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export const Tag =
  <Self>() =>
  <const Id extends string>(id: Id, options?: SchemeOptions): TagClass<Self, Id> =>
    HttpApiMiddleware.Service<Self, { provides: Provided }>()(id, {
      error: errors,
      security: schemesOf(guardSettings, HttpApiSecurity.apiKey, options)
    })

/**
 * The session id in `X-Session-Id`, the `session_id` cookie or the `session_id` query parameter.
 *
 * @since 0.1.0
 * @category tags
 */
export class Authentication extends Tag<Authentication>()("svc-sdk/Auth/Authentication") {}

/**
 * An authentication middleware made by {@link Tag}.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthenticationTag<Self>
  extends Context.Key<
    Self,
    HttpApiMiddleware.HttpApiMiddlewareSecurity<Schemes, Provided, typeof errors, never>
  > {
  readonly security: Schemes
}

/**
 * A check made by {@link RequireUserType} or {@link RequirePermission}.
 *
 * @since 0.1.0
 * @category models
 */
export interface CheckTag<Self>
  extends Context.Key<Self, HttpApiMiddleware.HttpApiMiddleware<Provided, typeof errors, never>> {
  readonly [CheckKey]: Check
}

/**
 * The class {@link RequireUserType} and {@link RequirePermission} make, to extend:
 * `class Admin extends HttpApiAuth.RequirePermission<Admin>()("Admin", "admin:write") {}`.
 *
 * @since 0.1.0
 * @category models
 */
export type CheckTagClass<Self, Id extends string> = MiddlewareClass<Self, Id, never> & {
  readonly [CheckKey]: Check
}

const checkTag = <Self, const Id extends string>(id: Id, check: Check): CheckTagClass<Self, Id> =>
  Object.assign(HttpApiMiddleware.Service<Self, { provides: Provided }>()(id, { error: errors }), {
    [CheckKey]: check
  })

/**
 * A middleware that lets through users whose `user_type` is one of `types` (403 `Insufficient
 * permissions. Required user types: ...` otherwise). It authenticates the request itself when no
 * authentication middleware ran before it, with the same answers, and provides `CurrentUser` and
 * `AuthContext`, so that the middlewares it wraps reuse them. Bad types throw here.
 *
 * @since 0.1.0
 * @category tags
 */
export const RequireUserType =
  <Self>() =>
  <const Id extends string>(
    id: Id,
    types: string | ReadonlyArray<string>
  ): CheckTagClass<Self, Id> =>
    checkTag<Self, Id>(id, userTypeCheck("HttpApiAuth.RequireUserType", types))

/**
 * A middleware that lets through users with `permission` and administrators (403 `Permission
 * required: ...` otherwise). Like {@link RequireUserType}, it authenticates the request itself when
 * needed. A bad permission throws here.
 *
 * @since 0.1.0
 * @category tags
 */
export const RequirePermission =
  <Self>() =>
  <const Id extends string>(
    id: Id,
    permission: string,
    options?: PermissionOptions
  ): CheckTagClass<Self, Id> =>
    checkTag<Self, Id>(id, permissionCheck("HttpApiAuth.RequirePermission", permission, options))

const OptionalKey = Symbol.for("svc-sdk/Auth/HttpApiAuth/Optional")

/**
 * A middleware made by {@link Optional}.
 *
 * @since 0.1.0
 * @category models
 */
export interface OptionalTag<Self>
  extends Context.Key<Self, HttpApiMiddleware.HttpApiMiddleware<AuthContext, never, never>> {
  readonly [OptionalKey]: SchemeOptions
}

/**
 * `optionalAuth` for `HttpApi` (Effect 4 has no optional middleware): it never refuses, and
 * provides `AuthContext` — the user when the session is valid, `{ is_guest: true }` otherwise.
 * It lists no security scheme (the endpoint is open). Implement it with {@link layerOptional}.
 *
 * @example
 * ```ts
 * import { HttpApiAuth } from "svc-sdk/Auth"
 *
 * class Visitor extends HttpApiAuth.Optional<Visitor>()("Visitor") {}
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export const Optional =
  <Self>() =>
  <const Id extends string>(id: Id, options?: SchemeOptions) => {
    guardSettings("HttpApiAuth.Optional", options)
    return Object.assign(HttpApiMiddleware.Service<Self, { provides: AuthContext }>()(id), {
      [OptionalKey]: { ...options }
    })
  }

/**
 * Options of the layers: how long the validator may take, and the cross-site check (see
 * `GuardOptions`). The names where the id is read come from the middleware's schemes.
 *
 * @since 0.1.0
 * @category models
 */
export type LayerOptions = Omit<GuardOptions, "header" | "cookie" | "query">

/**
 * The request's resolution. An earlier middleware's (or guard's) resolution is the established
 * one (`resolve` reads it from the context): the validator runs once per request, whichever
 * middleware asks first.
 */
const resolveWith = (settings: GuardSettings, validator: SessionValidator["Service"]) =>
  resolve(settings, (resolution, known) => Effect.succeed({ resolution, known })).pipe(
    Effect.provideService(SessionValidator, validator)
  )

/** What a scheme that is not the last answers: never seen, the builder goes on to the next. */
const stepAside: Effect.Effect<never, AuthError> = Effect.fail(
  new Unauthorized({ error: ErrorText.sessionIdRequired })
)

/** The texts are the pinned ones the schemas list. */
const errorOf = (refused: Rejection): AuthError => {
  switch (refused.status) {
    case 401:
      return new Unauthorized({ error: refused.text as Unauthorized["error"] })
    case 403:
      return new Forbidden({ error: refused.text as Forbidden["error"] })
    case 500:
      return new AuthenticationUnavailable({ error: ErrorText.unavailable })
  }
}

/** Runs the endpoint with the user of an authenticated request, or fails with its refusal. */
const proceed = (
  settings: GuardSettings,
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled, Provided>,
  resolution: Resolution,
  refused: Rejection | undefined
): Effect.Effect<HttpServerResponse.HttpServerResponse, unhandled | AuthError> => {
  if (refused !== undefined) return Effect.fail(errorOf(refused))
  // a check passes only an authenticated request; its user is provided for the rest
  if (resolution._tag !== "Authenticated") return Effect.fail(errorOf(rejection(resolution)))
  const endpoint = Effect.provideContext(httpEffect, userContext(resolution, resolution.user))
  return settings.spanUserId
    ? Effect.flatMap(spanUserId(resolution.user.user_id), () => endpoint)
    : endpoint
}

/**
 * Implements an authentication middleware over the application's `SessionValidator`: the first
 * id present (header, cookie, query) is validated; the endpoint gets `CurrentUser` and
 * `AuthContext`, or the request is answered with `requireAuth`'s pinned errors.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <Self>(
  tag: AuthenticationTag<Self>,
  options?: LayerOptions
): Layer.Layer<Self, never, SessionValidator> => {
  const settings = schemeSettings(guardSettings, tag.security, options)
  return Layer.effect(
    tag,
    Effect.map(Effect.service(SessionValidator), (validator) => {
      // `Cache-Control: no-store` on every answer of the endpoint, its refusals included
      const authenticate: SchemeMiddleware = (httpEffect) =>
        Effect.flatMap(
          Effect.andThen(noStore, resolveWith(settings, validator)),
          ({ resolution }) => proceed(settings, httpEffect, resolution, undefined)
        )
      // The builder tries the schemes in turn until one succeeds, and answers with the last
      // failure. The id is read from the request by `resolve` (header, cookie, query), so the
      // last scheme does it all; the others step aside at once, without a validation each.
      const names = Object.keys(tag.security)
      const handlers: Record<string, SchemeMiddleware> = {}
      for (const name of names) handlers[name] = () => stepAside
      handlers[names[names.length - 1]!] = authenticate
      return handlers
    })
  )
}

/**
 * Implements a {@link RequireUserType} or {@link RequirePermission} middleware. Give it the same
 * names as the authentication middleware when they are not the defaults.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCheck = <Self>(
  tag: CheckTag<Self>,
  options?: GuardOptions
): Layer.Layer<Self, never, SessionValidator> => {
  const settings = guardSettings("HttpApiAuth.layerCheck", options)
  const check = tag[CheckKey]
  return Layer.effect(
    tag,
    Effect.map(
      Effect.service(SessionValidator),
      (validator): HttpApiMiddleware.HttpApiMiddleware<Provided, typeof errors, never> =>
        (httpEffect) =>
          Effect.flatMap(
            Effect.andThen(noStore, resolveWith(settings, validator)),
            ({ resolution, known }) =>
              proceed(settings, httpEffect, resolution, check(resolution, known))
          )
    )
  )
}

/**
 * Implements an {@link Optional} middleware: the endpoint gets `AuthContext`, never a refusal.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerOptional = <Self>(
  tag: OptionalTag<Self>,
  options?: LayerOptions
): Layer.Layer<Self, never, SessionValidator> => {
  const settings = guardSettings("HttpApiAuth.layerOptional", { ...options, ...tag[OptionalKey] })
  return Layer.effect(
    tag,
    Effect.map(
      Effect.service(SessionValidator),
      (validator): HttpApiMiddleware.HttpApiMiddleware<AuthContext, never, never> =>
        (httpEffect) =>
          Effect.flatMap(resolveWith(settings, validator), ({ resolution }) => {
            const endpoint = Effect.provideContext(httpEffect, authContext(resolution))
            return settings.spanUserId && resolution._tag === "Authenticated"
              ? Effect.flatMap(spanUserId(resolution.user.user_id), () => endpoint)
              : endpoint
          })
    )
  )
}
