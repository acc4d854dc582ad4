/**
 * The session cookie the guards read (SPEC 6.2), set at login and cleared at logout:
 * `HttpOnly` always, `Secure` and `SameSite=Lax` by default, a browser-session cookie unless
 * `persistent`.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Redacted from "effect/Redacted"
import { sessionCookiesOf } from "../common/sessionCookie.js"
import type { SessionCookieOptionsOf } from "../core/sessionCookie.js"
import { auth } from "../internal/auth.js"

/**
 * Options of {@link setSessionCookie} and {@link clearSessionCookie}. Checked when given: a name,
 * path or domain with a control character, a space, `;` or `,` throws a `TypeError` naming the
 * option, and so does `sameSite: "none"` with `secure: false` (browsers drop such a cookie).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionCookieOptions extends SessionCookieOptionsOf<Duration.Input> {}

const cookies = sessionCookiesOf(auth)

/**
 * The response with the session cookie set to `id` (a `Redacted` id from `SessionStore.create` or
 * `rotate`, or a string). Also data-last, for `pipe`. Throws a `TypeError` for bad options or an
 * id that is not a session id (without quoting it).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpServerResponse } from "effect/http"
 * import { SessionStore, setSessionCookie } from "svc-sdk/Auth"
 *
 * const login = Effect.gen(function* () {
 *   const sessions = yield* SessionStore
 *   const id = yield* sessions.create({ user_id: "u1" })
 *   return HttpServerResponse.empty({ status: 204 }).pipe(setSessionCookie(id, { persistent: true }))
 * })
 * ```
 *
 * @since 0.1.0
 * @category cookies
 */
export const setSessionCookie: {
  (
    id: Redacted.Redacted<string> | string,
    options?: SessionCookieOptions
  ): (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.HttpServerResponse
  (
    response: HttpServerResponse.HttpServerResponse,
    id: Redacted.Redacted<string> | string,
    options?: SessionCookieOptions
  ): HttpServerResponse.HttpServerResponse
} = cookies.setSessionCookie as never

/**
 * The response with the session cookie cleared (an expired cookie of the same name, path and
 * domain): give it the options the cookie was set with. Also data-last, for `pipe`.
 *
 * @example
 * ```ts
 * import { HttpServerResponse } from "effect/http"
 * import { clearSessionCookie } from "svc-sdk/Auth"
 *
 * const loggedOut = HttpServerResponse.empty({ status: 204 }).pipe(clearSessionCookie())
 * ```
 *
 * @since 0.1.0
 * @category cookies
 */
export const clearSessionCookie: {
  (
    options?: SessionCookieOptions
  ): (response: HttpServerResponse.HttpServerResponse) => HttpServerResponse.HttpServerResponse
  (
    response: HttpServerResponse.HttpServerResponse,
    options?: SessionCookieOptions
  ): HttpServerResponse.HttpServerResponse
} = cookies.clearSessionCookie as never
