/**
 * @since 0.1.0
 */
import type { StorageAdapter } from "./StorageAdapter.js"

/**
 * A storage adapter over a `Map`, for tests and servers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const memoryStorage = (initial?: Iterable<readonly [string, string]>): StorageAdapter => {
  const entries = new Map<string, string>(initial)
  return {
    getItem: async (key) => entries.get(key) ?? null,
    setItem: async (key, value) => {
      entries.set(key, value)
    },
    removeItem: async (key) => {
      entries.delete(key)
    }
  }
}
