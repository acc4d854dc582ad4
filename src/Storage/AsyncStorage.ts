/**
 * A storage adapter over React Native's `@react-native-async-storage/async-storage`, an optional
 * peer dependency loaded only when asked for.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/asyncStorage.js"
import type { StorageAdapter } from "./StorageAdapter.js"

/**
 * The part of AsyncStorage's API the adapter uses.
 *
 * @since 0.1.0
 * @category models
 */
export interface AsyncStorageLike {
  getItem(key: string): Promise<string | null | undefined>
  setItem(key: string, value: string): Promise<unknown>
  removeItem(key: string): Promise<unknown>
}

/**
 * AsyncStorage itself, or the module namespace whose `default` export it is.
 *
 * @since 0.1.0
 * @category models
 */
export type AsyncStorageModule = AsyncStorageLike | { readonly default: AsyncStorageLike }

/**
 * Adapts AsyncStorage (or an object with its API) to {@link StorageAdapter}; a method that throws
 * instead of rejecting gives a rejection. Throws a `TypeError` when `module` has not that API.
 *
 * @example
 * ```ts
 * import AsyncStorage from "@react-native-async-storage/async-storage"
 * import { asyncStorage } from "svc-sdk/Storage"
 *
 * const storage = asyncStorage(AsyncStorage)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const asyncStorage: (module: AsyncStorageModule) => StorageAdapter = internal.make

/**
 * Imports `@react-native-async-storage/async-storage` once and adapts it; `undefined` when the
 * package is not installed, never a rejection. Bundlers for the web see the import inside a
 * `try` and leave it to fail at run time (esbuild) or warn (webpack); `detectStorage` calls this
 * only in React Native.
 *
 * @since 0.1.0
 * @category constructors
 */
export const loadAsyncStorage: () => Promise<StorageAdapter | undefined> = internal.load
