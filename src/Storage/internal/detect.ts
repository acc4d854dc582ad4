import type { StorageAdapter } from "../StorageAdapter.js"
import * as asyncStorage from "./asyncStorage.js"
import * as browser from "./browserStorage.js"

export const isReactNative = (): boolean =>
  typeof navigator === "object" && navigator !== null && navigator.product === "ReactNative"

export const isBrowser = (): boolean =>
  typeof window === "object" && window !== null && typeof document === "object" && document !== null

export const detect = async (): Promise<StorageAdapter | undefined> => {
  if (isReactNative()) return asyncStorage.load()
  if (!isBrowser()) return undefined
  const storage = browser.make()
  return storage.stores.length > 0 ? storage : undefined
}
