/**
 * A storage adapter over the `session_id` cookie of the page.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/cookieStorage.js"
import type { StorageAdapter } from "./StorageAdapter.js"

/**
 * The part of `Document` the cookie adapter uses.
 *
 * @since 0.1.0
 * @category models
 */
export interface CookieDocument {
  cookie: string
}

/**
 * The name of the only cookie {@link cookieStorage} reads and writes.
 *
 * @since 0.1.0
 * @category constants
 */
export const SESSION_COOKIE: "session_id" = internal.SESSION_COOKIE

/**
 * An adapter over the `session_id` cookie, as `document.cookie` shows it (an `HttpOnly` cookie is
 * invisible to scripts and so never found: the browser sends it by itself to its own origin).
 *
 * - `getItem("session_id")` is the cookie's value, percent-decoded; every other key is `null`.
 * - `setItem("session_id", v)` writes a script-visible cookie `session_id=v; Path=/; SameSite=Lax`
 *   (plus `Secure` on https pages); other keys reject with a `RangeError`.
 * - `removeItem("session_id")` expires the cookie on `Path=/` (a cookie set on another path or
 *   domain outlives it); other keys are left alone.
 *
 * Throws a `TypeError` when no `document` is given and there is no global one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cookieStorage: (document?: CookieDocument) => StorageAdapter = internal.make
