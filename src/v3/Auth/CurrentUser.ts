/**
 * Who is making the request, as the guards give it to handlers.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Redacted from "effect/Redacted"
import { type AuthenticatedUserOf, type Guest, guest } from "../../core/authRules.js"
import type { SessionData } from "./SessionData.js"

export { type Guest, guest }

/**
 * A request made with a valid session. `session_id` is the id the request presented, redacted
 * (`Redacted.value` reads it): a handler logs out with `SessionStore.revoke(user.session_id)` or
 * rotates with `rotate(user.session_id)` without reading headers itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthenticatedUser
  extends AuthenticatedUserOf<SessionData, Redacted.Redacted<string>> {}

/**
 * The authenticated user. Provided by `requireAuth`, `requireUserType` and `requirePermission`;
 * a handler that asks for it does not type-check until one of them wraps it.
 *
 * @example
 * ```ts
 * import { HttpServerResponse } from "@effect/platform"
 * import { Effect } from "effect"
 * import { CurrentUser, requireAuth } from "svc-sdk/v3/Auth"
 *
 * const me = Effect.gen(function* () {
 *   const user = yield* CurrentUser
 *   return yield* HttpServerResponse.json({ id: user.user_id })
 * }).pipe(requireAuth())
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class CurrentUser extends Context.Tag("svc-sdk/Auth/CurrentUser")<
  CurrentUser,
  AuthenticatedUser
>() {}

/**
 * The user, or a guest. Provided by every guard, `optionalAuth` included.
 *
 * @since 0.1.0
 * @category tags
 */
export class AuthContext extends Context.Tag("svc-sdk/Auth/AuthContext")<
  AuthContext,
  AuthenticatedUser | Guest
>() {}
