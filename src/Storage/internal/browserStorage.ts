import type { BrowserScope } from "../BrowserStorage.js"
import type { CombinedStorage } from "../CombinedStorage.js"
import type { CookieDocument } from "../CookieStorage.js"
import type { StorageAdapter } from "../StorageAdapter.js"
import type { WebStorageLike } from "../WebStorage.js"
import * as combined from "./combinedStorage.js"
import * as cookie from "./cookieStorage.js"
import * as web from "./webStorage.js"

/** Reads a property that may throw on access (`localStorage` with cookies blocked). */
const probe = <A>(read: () => A): A | undefined => {
  try {
    return read()
  } catch {
    return undefined
  }
}

const isWebStorage = (value: unknown): value is WebStorageLike =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as WebStorageLike).getItem === "function"

const webTier = (scope: BrowserScope, name: "localStorage" | "sessionStorage") =>
  isWebStorage(probe(() => scope[name])) ? [web.make(() => scope[name] as WebStorageLike)] : []

const cookieTier = (scope: BrowserScope) => {
  const document = probe(() => scope.document)
  return typeof probe(() => document?.cookie) === "string"
    ? [cookie.make(document as CookieDocument)]
    : []
}

export const make = (scope: BrowserScope = globalThis as BrowserScope): CombinedStorage => {
  if (typeof scope !== "object" || scope === null) {
    throw new TypeError("browserStorage: scope must be an object such as window")
  }
  const stores: Array<StorageAdapter> = [
    ...webTier(scope, "localStorage"),
    ...webTier(scope, "sessionStorage"),
    ...cookieTier(scope)
  ]
  return combined.make(stores)
}
