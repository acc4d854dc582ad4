/**
 * Several storages read as one, in order of preference.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/combinedStorage.js"
import type { StorageAdapter } from "./StorageAdapter.js"

/**
 * Marks a {@link CombinedStorage}.
 *
 * @since 0.1.0
 * @category symbols
 */
export const CombinedStorageTypeId: unique symbol = internal.TypeId

/**
 * @since 0.1.0
 * @category symbols
 */
export type CombinedStorageTypeId = typeof CombinedStorageTypeId

/**
 * Stores in order of preference, themselves a {@link StorageAdapter}:
 *
 * - `getItem(key)`: the first non-null value for `key`, store by store;
 * - `setItem`: writes the first store that accepts the write (the next one when a store rejects),
 *   and removes the key from the stores before it, so that `getItem` finds the value written;
 * - `removeItem`: removes from every store.
 *
 * A store that rejects is skipped; the operation rejects (with the first failure) only when no
 * store gave an answer. `findSessionId` searches a combined storage store by store: every pinned
 * key in the first store, then every key in the second, and so on.
 *
 * @since 0.1.0
 * @category models
 */
export interface CombinedStorage extends StorageAdapter {
  readonly [CombinedStorageTypeId]: CombinedStorageTypeId
  readonly stores: ReadonlyArray<StorageAdapter>
}

/**
 * Combines storages, the preferred first. Throws a `TypeError` when an element is not a
 * {@link StorageAdapter}.
 *
 * @example
 * ```ts
 * import { combinedStorage, memoryStorage, webStorage } from "svc-sdk/Storage"
 *
 * const storage = combinedStorage([webStorage(window.localStorage), memoryStorage()])
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const combinedStorage: (stores: ReadonlyArray<StorageAdapter>) => CombinedStorage =
  internal.make

/**
 * @since 0.1.0
 * @category guards
 */
export const isCombinedStorage: (value: unknown) => value is CombinedStorage =
  internal.isCombinedStorage
