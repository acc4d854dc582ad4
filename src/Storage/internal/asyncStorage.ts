import { importAsyncStorage } from "#asyncStorage"
import type { AsyncStorageLike, AsyncStorageModule } from "../AsyncStorage.js"
import type { StorageAdapter } from "../StorageAdapter.js"
import { hasStorageMethods, settle } from "./settle.js"

const isAsyncStorageLike = hasStorageMethods<AsyncStorageLike>

/** The AsyncStorage object in a module namespace: itself, its `default`, or `default.default` (CJS). */
const unwrap = (module: unknown): AsyncStorageLike | undefined => {
  let candidate = module
  for (let depth = 0; depth < 3; depth++) {
    if (isAsyncStorageLike(candidate)) return candidate
    if (typeof candidate !== "object" || candidate === null) return undefined
    candidate = (candidate as { default?: unknown }).default
  }
  return undefined
}

export const make = (module: AsyncStorageModule): StorageAdapter => {
  const storage = unwrap(module)
  if (storage === undefined) {
    throw new TypeError(
      "asyncStorage: module must be AsyncStorage (getItem, setItem and removeItem returning promises) or a module whose default export it is"
    )
  }
  return {
    getItem: (key) => settle(() => storage.getItem(key)).then((value) => value ?? null),
    setItem: (key, value) => settle(() => storage.setItem(key, value)).then(() => {}),
    removeItem: (key) => settle(() => storage.removeItem(key)).then(() => {})
  }
}

/** Loads AsyncStorage with `importer`; `undefined` when the module is missing or not AsyncStorage. */
export const loadWith = async (
  importer: () => Promise<unknown>
): Promise<StorageAdapter | undefined> => {
  try {
    const storage = unwrap(await importer())
    return storage === undefined ? undefined : make(storage)
  } catch {
    return undefined
  }
}

let loaded: Promise<StorageAdapter | undefined> | undefined

export const load = (): Promise<StorageAdapter | undefined> => {
  loaded ??= loadWith(importAsyncStorage)
  return loaded
}
