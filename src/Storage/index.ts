/**
 * Session storage for the client: the adapter type, adapters, and detection.
 *
 * @since 0.1.0
 * @module svc-sdk/Storage
 */

export {
  type AsyncStorageLike,
  type AsyncStorageModule,
  asyncStorage,
  loadAsyncStorage
} from "./AsyncStorage.js"
export { type BrowserScope, browserStorage } from "./BrowserStorage.js"
export {
  type CombinedStorage,
  CombinedStorageTypeId,
  combinedStorage,
  isCombinedStorage
} from "./CombinedStorage.js"
export { type CookieDocument, cookieStorage, SESSION_COOKIE } from "./CookieStorage.js"
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
export { type WebStorageLike, type WebStorageSource, webStorage } from "./WebStorage.js"
