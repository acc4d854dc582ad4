/**
 * Which keys hold a session id, and which values count as one.
 *
 * @since 0.1.0
 */

import { isValidSessionId, MAX_SESSION_ID_LENGTH } from "../core/sessionId.js"
import { firstAccepted, isCombinedStorage } from "./internal/combinedStorage.js"
import { allOrFirstFailure } from "./internal/settle.js"
import type { StorageAdapter } from "./StorageAdapter.js"

/**
 * The keys read when looking for a stored session id, in the order they are tried (pinned).
 *
 * @since 0.1.0
 * @category constants
 */
export const SESSION_KEYS = [
  "svc_session_id",
  "session_id",
  "sessionId",
  "svc-session-id",
  "session-id",
  "sid"
] as const

/**
 * The key `setSessionId` writes to.
 *
 * @since 0.1.0
 * @category constants
 */
export const SESSION_STORAGE_KEY = "svc_session_id"

export { isValidSessionId, MAX_SESSION_ID_LENGTH } from "../core/sessionId.js"

/**
 * The first valid session id found under {@link SESSION_KEYS}, in order. A combined storage
 * (`browserStorage()`) is searched store by store: every key in `localStorage`, then every key in
 * `sessionStorage`, then the cookie. Rejects when the adapter does (for a combined storage: when a
 * store failed and no other store held a valid id); the client reports that to `onError` and goes
 * on without a session.
 *
 * @since 0.1.0
 * @category session
 */
export const findSessionId = async (storage: StorageAdapter): Promise<string | undefined> => {
  if (!isCombinedStorage(storage)) return findInStore(storage)
  const result = await firstAccepted(storage.stores, findSessionId, (id) => id !== undefined)
  return result.found ? result.value : undefined
}

const findInStore = async (storage: StorageAdapter): Promise<string | undefined> => {
  for (const key of SESSION_KEYS) {
    const value = await storage.getItem(key)
    if (isValidSessionId(value)) return value
  }
  return undefined
}

/**
 * Stores a session id under {@link SESSION_STORAGE_KEY}. Rejects with a `TypeError` (which does
 * not show the value) when `id` is not a valid session id, since detection would never find it.
 *
 * @since 0.1.0
 * @category session
 */
export const saveSessionId = async (storage: StorageAdapter, id: string): Promise<void> => {
  if (!isValidSessionId(id)) {
    throw new TypeError(
      `saveSessionId: id must be 1 to ${MAX_SESSION_ID_LENGTH} visible ASCII characters (0x21–0x7E)`
    )
  }
  await storage.setItem(SESSION_STORAGE_KEY, id)
}

/**
 * Removes every key of {@link SESSION_KEYS}, so that detection finds no session afterwards. Every
 * key is tried; then it rejects with the first failure, if any.
 *
 * @since 0.1.0
 * @category session
 */
export const clearSessionId = (storage: StorageAdapter): Promise<void> =>
  allOrFirstFailure(SESSION_KEYS.map((key) => () => storage.removeItem(key)))
