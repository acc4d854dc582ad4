/**
 * Where the client keeps a session id between page loads or app starts: the storage contract the
 * client reads, written here so that the client's code needs nothing of `svc-sdk/Storage`.
 */

/**
 * An asynchronous key-value store, the shape of React Native's AsyncStorage.
 *
 * @since 0.1.0
 * @category models
 */
export interface StorageAdapter {
  getItem(key: string): Promise<string | null>
  setItem(key: string, value: string): Promise<void>
  removeItem(key: string): Promise<void>
}
