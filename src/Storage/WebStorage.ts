/**
 * A storage adapter over the browser's synchronous Web Storage (`localStorage`, `sessionStorage`).
 *
 * @since 0.1.0
 */
import * as internal from "./internal/webStorage.js"
import type { StorageAdapter } from "./StorageAdapter.js"

/**
 * The part of the Web Storage `Storage` interface the adapter uses.
 *
 * @since 0.1.0
 * @category models
 */
export interface WebStorageLike {
  getItem(key: string): string | null
  setItem(key: string, value: string): void
  removeItem(key: string): void
}

/**
 * A `Storage` object, or a function returning one. A function is called on every operation, so a
 * storage whose very access throws (`window.localStorage` in a sandboxed iframe or with cookies
 * blocked raises a `SecurityError`) fails that operation only.
 *
 * @since 0.1.0
 * @category models
 */
export type WebStorageSource = WebStorageLike | (() => WebStorageLike)

/**
 * Adapts a synchronous Web Storage object to the asynchronous {@link StorageAdapter}. Whatever the
 * storage throws (`SecurityError`, `QuotaExceededError`, …) becomes a rejection, never an exception.
 *
 * Throws a `TypeError` when `storage` is not a Web Storage object.
 *
 * @example
 * ```ts
 * import { findSessionId, webStorage } from "svc-sdk/Storage"
 *
 * const id = await findSessionId(webStorage(window.sessionStorage))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const webStorage: (storage: WebStorageSource) => StorageAdapter = internal.make
