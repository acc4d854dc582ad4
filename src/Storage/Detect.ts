/**
 * @since 0.1.0
 */
import type { StorageAdapter } from "./StorageAdapter.js"

/**
 * The storage this runtime offers: in a browser localStorage, then sessionStorage, then the
 * `session_id` cookie; in React Native AsyncStorage (loaded lazily); on a server none.
 *
 * Placeholder until browser and React Native detection land: finds nothing.
 *
 * @since 0.1.0
 * @category detection
 */
export const detectStorage = async (): Promise<StorageAdapter | undefined> => undefined
