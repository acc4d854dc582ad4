/**
 * Where the client keeps a session id between page loads or app starts.
 *
 * @since 0.1.0
 */
export type { StorageAdapter } from "../core/storage.js"
