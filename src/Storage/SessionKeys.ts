/**
 * Which keys hold a session id, and which values count as one.
 *
 * @since 0.1.0
 */
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

/**
 * The longest session id accepted from storage.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_SESSION_ID_LENGTH = 512

/**
 * A non-empty string without whitespace or control characters, at most 512 characters.
 *
 * @since 0.1.0
 * @category guards
 */
export const isValidSessionId = (value: unknown): value is string =>
  typeof value === "string" &&
  value.length > 0 &&
  value.length <= MAX_SESSION_ID_LENGTH &&
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
  !/[\s\u0000-\u001f\u007f]/.test(value)

/**
 * The first valid session id found under {@link SESSION_KEYS}, in order. Rejects when the adapter does.
 *
 * @since 0.1.0
 * @category session
 */
export const findSessionId = async (storage: StorageAdapter): Promise<string | undefined> => {
  for (const key of SESSION_KEYS) {
    const value = await storage.getItem(key)
    if (isValidSessionId(value)) return value
  }
  return undefined
}

/**
 * Stores a session id under {@link SESSION_STORAGE_KEY}.
 *
 * @since 0.1.0
 * @category session
 */
export const saveSessionId = (storage: StorageAdapter, id: string): Promise<void> =>
  storage.setItem(SESSION_STORAGE_KEY, id)

/**
 * Removes every key of {@link SESSION_KEYS}, so that detection finds no session afterwards.
 *
 * @since 0.1.0
 * @category session
 */
export const clearSessionId = async (storage: StorageAdapter): Promise<void> => {
  for (const key of SESSION_KEYS) await storage.removeItem(key)
}
