/**
 * Where the client keeps a session id between page loads or app starts.
 *
 * @since 0.1.0
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
