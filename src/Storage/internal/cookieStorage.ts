import type { CookieDocument } from "../CookieStorage.js"
import type { StorageAdapter } from "../StorageAdapter.js"
import { settle } from "./settle.js"

export const SESSION_COOKIE = "session_id" as const

const decode = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/**
 * The value of the first cookie called `name` in a `document.cookie` string, without the double
 * quotes a quoted value has (RFC 6265's `cookie-value`; servers quote values with `/` or `=`), as
 * a server's cookie parser reads it.
 */
export const readCookie = (cookies: string, name: string): string | null => {
  for (const pair of cookies.split(";")) {
    const separator = pair.indexOf("=")
    if (separator === -1) continue
    if (pair.slice(0, separator).trim() !== name) continue
    const value = pair.slice(separator + 1).trim()
    const quoted = value.length > 1 && value[0] === '"' && value.at(-1) === '"'
    return decode(quoted ? value.slice(1, -1) : value)
  }
  return null
}

const isSecurePage = (): boolean =>
  typeof location !== "undefined" && (location as Location).protocol === "https:"

const writeCookie = (document: CookieDocument, value: string) => {
  const secure = isSecurePage() ? "; Secure" : ""
  document.cookie = `${SESSION_COOKIE}=${encodeURIComponent(value)}; Path=/; SameSite=Lax${secure}`
}

const expireCookie = (document: CookieDocument) => {
  document.cookie = `${SESSION_COOKIE}=; Path=/; Max-Age=0`
}

const checked = (document: unknown): CookieDocument => {
  if (typeof document === "object" && document !== null && "cookie" in document) {
    return document as CookieDocument
  }
  throw new TypeError(
    "cookieStorage: document must be an object with a cookie property (there is no global document here)"
  )
}

const rejectKey = (key: string) =>
  Promise.reject(
    new RangeError(
      `cookieStorage: only the "${SESSION_COOKIE}" cookie can be written, not "${key}"`
    )
  )

export const make = (document?: CookieDocument): StorageAdapter => {
  const target = checked(document ?? (globalThis as { document?: unknown }).document)
  return {
    getItem: (key) =>
      key === SESSION_COOKIE
        ? settle(() => readCookie(String(target.cookie), key))
        : settle(() => null),
    setItem: (key, value) =>
      key === SESSION_COOKIE ? settle(() => writeCookie(target, value)) : rejectKey(key),
    removeItem: (key) =>
      key === SESSION_COOKIE ? settle(() => expireCookie(target)) : settle(() => undefined)
  }
}
