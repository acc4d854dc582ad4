import type { StorageAdapter } from "../StorageAdapter.js"
import type { WebStorageLike, WebStorageSource } from "../WebStorage.js"
import { hasStorageMethods, settle } from "./settle.js"

const isWebStorageLike = hasStorageMethods<WebStorageLike>

const checked = (value: unknown): WebStorageLike => {
  if (isWebStorageLike(value)) return value
  throw new TypeError(
    "webStorage: storage must have getItem, setItem and removeItem methods (a Web Storage object)"
  )
}

const sourceOf = (storage: WebStorageSource): (() => WebStorageLike) => {
  if (typeof storage === "function") return () => checked(storage())
  const store = checked(storage)
  return () => store
}

export const make = (storage: WebStorageSource): StorageAdapter => {
  if (typeof storage !== "function") checked(storage)
  const store = sourceOf(storage)
  return {
    getItem: (key) => settle(() => store().getItem(key) ?? null),
    setItem: (key, value) => settle(() => store().setItem(key, value)),
    removeItem: (key) => settle(() => store().removeItem(key))
  }
}
