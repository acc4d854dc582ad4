/**
 * The guards for `HttpApiBuilder`: middleware that provides `CurrentUser` to the endpoints of an
 * `HttpApi`, lists the session id's header, cookie and query parameter as security schemes in the
 * OpenAPI document, and answers with the pinned statuses and `{"error": "..."}` bodies.
 *
 * @example
 * ```ts
 * import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
 * import { HttpApiAuth } from "svc-sdk/v3/Auth"
 *
 * class CanDelete extends HttpApiAuth.RequirePermission<CanDelete>()("CanDelete", "products:delete") {}
 *
 * const Api = HttpApi.make("shop").add(
 *   HttpApiGroup.make("products")
 *     .add(HttpApiEndpoint.del("remove", "/products/:id"))
 *     .middleware(CanDelete)
 *     .middleware(HttpApiAuth.Authentication)
 * )
 * // served with HttpApiAuth.layer(HttpApiAuth.Authentication) and HttpApiAuth.layerCheck(CanDelete)
 * ```
 *
 * @since 0.1.0
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { spanUserId } from "../../common/guards.js"
import {
  CheckKey,
  type SchemeOptions,
  schemeSettings,
  schemesOf
} from "../../common/httpApiAuth.js"
import type { GuardSettings } from "../../core/authOptions.js"
import {
  type Check,
  permissionCheck,
  type Rejection,
  rejection,
  userTypeCheck
} from "../../core/authRules.js"
import { ErrorText } from "../../core/authTexts.js"
import { type AuthenticatedUser, CurrentUser } from "./CurrentUser.js"
import { type GuardOptions, guards, type PermissionOptions } from "./Guards.js"
import { SessionValidator } from "./SessionValidator.js"

const { guardSettings, noStore, resolve } = guards

/*
 * Each error's text is one of its pinned texts (SPEC 6.3): that is how an answer finds its status,
 * and what the OpenAPI document shows.
 */

/**
 * 401: `Session ID required`, `Invalid session` or `Authentication required`. Its body is exactly
 * `{"error": "..."}`.
 *
 * @since 0.1.0
 * @category errors
 */
export class Unauthorized extends Schema.Class<Unauthorized>("svc-sdk.Auth.Unauthorized")(
  {
    error: Schema.Literal(
      ErrorText.sessionIdRequired,
      ErrorText.invalidSession,
      ErrorText.authenticationRequired
    )
  },
  HttpApiSchema.annotations({ status: 401, description: "No valid session" })
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
  {
    error: Schema.Union(
      Schema.Literal(ErrorText.crossSite),
      Schema.TemplateLiteral(ErrorText.userTypes([]), Schema.String),
      Schema.TemplateLiteral(ErrorText.permission(""), Schema.String)
    )
  },
  HttpApiSchema.annotations({ status: 403, description: "Not allowed for this user" })
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
  { error: Schema.Literal(ErrorText.unavailable) },
  HttpApiSchema.annotations({ status: 500, description: "The session could not be checked" })
) {
  /** For `Effect.catchTag`; not part of the body. */
  get _tag(): "AuthenticationUnavailable" {
    return "AuthenticationUnavailable"
  }
}

/**
 * Every refusal of the middleware, by status.
 *
 * @since 0.1.0
 * @category errors
 */
export const AuthError = Schema.Union(Unauthorized, Forbidden, AuthenticationUnavailable)

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

/**
 * The class {@link Tag} makes, to extend: `class Session extends HttpApiAuth.Tag<Session>()("Session") {}`.
 *
 * @since 0.1.0
 * @category models
 */
export type TagClass<Self, Id extends string> = HttpApiMiddleware.TagClass<
  Self,
  Id,
  {
    readonly provides: typeof CurrentUser
    readonly failure: typeof AuthError
    readonly security: Schemes
  }
> & { readonly security: Schemes }

/**
 * Makes an authentication middleware: put it on an `HttpApiGroup` or `HttpApiEndpoint` with
 * `.middleware(...)`, implement it with {@link layer}. Its endpoints get `CurrentUser`; the OpenAPI
 * document lists its schemes and its 401, 403 and 500 answers. `Authentication` is one with the
 * default names.
 *
 * @example
 * ```ts
 * import { HttpApiAuth } from "svc-sdk/v3/Auth"
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
    HttpApiMiddleware.Tag<Self>()(id, {
      provides: CurrentUser,
      failure: AuthError,
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
  extends Context.Tag<
    Self,
    HttpApiMiddleware.HttpApiMiddlewareSecurity<Schemes, AuthenticatedUser, AuthError>
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
  extends Context.Tag<Self, HttpApiMiddleware.HttpApiMiddleware<AuthenticatedUser, AuthError>> {
  readonly [CheckKey]: Check
}

/**
 * The class {@link RequireUserType} and {@link RequirePermission} make, to extend:
 * `class Admin extends HttpApiAuth.RequirePermission<Admin>()("Admin", "admin:write") {}`.
 *
 * @since 0.1.0
 * @category models
 */
export type CheckTagClass<Self, Id extends string> = HttpApiMiddleware.TagClass<
  Self,
  Id,
  { readonly provides: typeof CurrentUser; readonly failure: typeof AuthError }
> & { readonly [CheckKey]: Check }

const checkTag = <Self, const Id extends string>(id: Id, check: Check): CheckTagClass<Self, Id> =>
  Object.assign(HttpApiMiddleware.Tag<Self>()(id, { provides: CurrentUser, failure: AuthError }), {
    [CheckKey]: check
  })

/**
 * A middleware that lets through users whose `user_type` is one of `types` (403 `Insufficient
 * permissions. Required user types: ...` otherwise). It authenticates the request itself when no
 * authentication middleware ran before it, with the same answers, and provides `CurrentUser`, so
 * that the middlewares it wraps reuse it. Bad types throw here.
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

/**
 * Options of the layers: how long the validator may take, and the cross-site check (see
 * `GuardOptions`). The names where the id is read come from the middleware's schemes.
 *
 * @since 0.1.0
 * @category models
 */
export type LayerOptions = Omit<GuardOptions, "header" | "cookie" | "query">

/**
 * The request's resolution. An earlier `HttpApiAuth` middleware's `CurrentUser` is the established
 * one (`resolve` reads it from the context): the validator runs once per request, whichever
 * middleware asks first.
 */
const resolveOnce = (settings: GuardSettings) =>
  resolve(settings, (resolution, known) => Effect.succeed({ resolution, known }))

/** What a scheme that is not the last answers: never seen, the builder goes on to the next. */
const stepAside: Effect.Effect<never, AuthError> = Effect.fail(
  new Unauthorized({ error: ErrorText.sessionIdRequired }, true)
)

/** The texts are the pinned ones the schemas list: the constructors need not check them again. */
const errorOf = (refused: Rejection): AuthError => {
  switch (refused.status) {
    case 401:
      return new Unauthorized({ error: refused.text as Unauthorized["error"] }, true)
    case 403:
      return new Forbidden({ error: refused.text as Forbidden["error"] }, true)
    case 500:
      return new AuthenticationUnavailable(
        { error: refused.text as "Authentication service unavailable" },
        true
      )
  }
}

/**
 * Implements an authentication middleware over the application's `SessionValidator`: the first
 * id present (header, cookie, query) is validated; the endpoint gets `CurrentUser`, or the request
 * is answered with `requireAuth`'s pinned errors.
 *
 * @since 0.1.0
 * @category layers
 */
/** The user the middleware provides, its id on the current span where the app opted in. */
const userOf = (settings: GuardSettings, user: AuthenticatedUser) =>
  settings.spanUserId ? Effect.as(spanUserId(user.user_id), user) : Effect.succeed(user)

export const layer = <Self>(
  tag: AuthenticationTag<Self>,
  options?: LayerOptions
): Layer.Layer<Self, never, SessionValidator> => {
  const settings = schemeSettings(guardSettings, tag.security, options)
  return Layer.effect(
    tag,
    Effect.map(SessionValidator, (validator) => {
      // `Cache-Control: no-store` on every answer of the endpoint, its refusals included
      const authenticate = Effect.andThen(noStore, resolveOnce(settings)).pipe(
        Effect.flatMap(({ resolution }) =>
          resolution._tag === "Authenticated"
            ? userOf(settings, resolution.user)
            : Effect.fail(errorOf(rejection(resolution)))
        ),
        Effect.provideService(SessionValidator, validator)
      )
      // The builder tries the schemes in turn until one succeeds, and answers with the last
      // failure. The id is read from the request by `resolve` (header, cookie, query), so the
      // last scheme does it all; the others step aside at once, without a validation each.
      const names = Object.keys(tag.security)
      const handlers: Record<string, () => typeof authenticate> = {}
      for (const name of names) handlers[name] = () => stepAside
      handlers[names[names.length - 1]!] = () => authenticate
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
    Effect.map(SessionValidator, (validator) =>
      Effect.andThen(noStore, resolveOnce(settings)).pipe(
        Effect.flatMap(({ resolution, known }) => {
          const refused = check(resolution, known)
          if (refused !== undefined) return Effect.fail(errorOf(refused))
          // a check passes only an authenticated request; its user is provided for the rest
          return resolution._tag === "Authenticated"
            ? userOf(settings, resolution.user)
            : Effect.fail(errorOf(rejection(resolution)))
        }),
        Effect.provideService(SessionValidator, validator)
      )
    )
  )
}
