/**
 * @since 0.1.0
 */
import * as internal from "./internal/detect.js"
import type { StorageAdapter } from "./StorageAdapter.js"

/**
 * The storage this runtime offers, touching nothing else:
 *
 * - React Native (`navigator.product === "ReactNative"`): AsyncStorage when
 *   `@react-native-async-storage/async-storage` is installed, else `undefined`;
 * - a browser page (`window` and `document`): {@link browserStorage} — `localStorage`, then
 *   `sessionStorage`, then the `session_id` cookie — or `undefined` when none can be reached;
 * - anything else (Node, Deno, Bun, workers): `undefined`; the session is supplied by hand.
 *
 * Never rejects.
 *
 * @since 0.1.0
 * @category detection
 */
export const detectStorage: () => Promise<StorageAdapter | undefined> = internal.detect
