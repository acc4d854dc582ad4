/**
 * The storage a browser page offers: `localStorage`, then `sessionStorage`, then the `session_id`
 * cookie.
 *
 * @since 0.1.0
 */
import type { CombinedStorage } from "./CombinedStorage.js"
import type { CookieDocument } from "./CookieStorage.js"
import * as internal from "./internal/browserStorage.js"
import type { WebStorageLike } from "./WebStorage.js"

/**
 * Where {@link browserStorage} finds the page's storages: `window` by default.
 *
 * @since 0.1.0
 * @category models
 */
export interface BrowserScope {
  readonly localStorage?: WebStorageLike | undefined
  readonly sessionStorage?: WebStorageLike | undefined
  readonly document?: CookieDocument | undefined
}

/**
 * `localStorage`, then `sessionStorage`, then the `session_id` cookie, combined (see
 * {@link CombinedStorage}). A storage that cannot be reached when this is called (absent, or
 * throwing a `SecurityError` on access) is left out; one that fails later fails only that
 * operation, and the next storage is asked.
 *
 * - Detection (`findSessionId`) reads every pinned key in `localStorage`, then every key in
 *   `sessionStorage`, then the cookie: the first valid id wins.
 * - `setItem` writes `localStorage`, or `sessionStorage` when `localStorage` refuses (quota,
 *   private mode), or, for the `session_id` key only, the cookie; a storage that refused loses
 *   what it held under the key (a reload would find that first).
 * - `removeItem` removes the key everywhere.
 *
 * @since 0.1.0
 * @category constructors
 */
export const browserStorage: (scope?: BrowserScope) => CombinedStorage = internal.make
