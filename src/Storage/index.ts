/**
 * Session storage for the client: the adapter type, adapters, and detection.
 *
 * @since 0.1.0
 */

export { detectStorage } from "./Detect.js"
export { memoryStorage } from "./MemoryStorage.js"
export {
  clearSessionId,
  findSessionId,
  isValidSessionId,
  MAX_SESSION_ID_LENGTH,
  SESSION_KEYS,
  SESSION_STORAGE_KEY,
  saveSessionId
} from "./SessionKeys.js"
export type { StorageAdapter } from "./StorageAdapter.js"
