import type { AsyncStorageLike, CookieDocument, WebStorageLike } from "../../src/Storage/index.js"

/**
 * An in-memory implementation of the Web Storage `Storage` interface, faithful where the adapters
 * care: values are strings, missing keys are `null`, `key(i)`/`length` enumerate, and a quota can
 * make `setItem` throw a `QuotaExceededError` as browsers do.
 */
export class FakeWebStorage implements WebStorageLike {
  readonly #entries = new Map<string, string>()
  readonly #quota: number

  constructor(options: { readonly quota?: number } = {}) {
    this.#quota = options.quota ?? Number.POSITIVE_INFINITY
  }

  get length(): number {
    return this.#entries.size
  }

  key(index: number): string | null {
    return [...this.#entries.keys()][index] ?? null
  }

  getItem(key: string): string | null {
    return this.#entries.get(String(key)) ?? null
  }

  setItem(key: string, value: string): void {
    const entries = new Map(this.#entries).set(String(key), String(value))
    const used = [...entries].reduce((size, [k, v]) => size + k.length + v.length, 0)
    if (used > this.#quota) {
      throw new DOMException("The quota has been exceeded.", "QuotaExceededError")
    }
    this.#entries.set(String(key), String(value))
  }

  removeItem(key: string): void {
    this.#entries.delete(String(key))
  }

  clear(): void {
    this.#entries.clear()
  }
}

/** A `Storage` whose every method throws, like `localStorage` with cookies blocked. */
export const blockedWebStorage = (): WebStorageLike => {
  const deny = (): never => {
    throw new DOMException("Access is denied for this document.", "SecurityError")
  }
  return { getItem: deny, setItem: deny, removeItem: deny }
}

/**
 * `document.cookie` semantics for one path: reading gives `name=value; name2=value2`, writing
 * `name=value; attributes` sets one cookie, `Max-Age=0` (or an expiry in the past) deletes it.
 */
export class FakeCookieDocument implements CookieDocument {
  readonly #jar = new Map<string, string>()
  readonly writes: Array<string> = []

  get cookie(): string {
    return [...this.#jar].map(([name, value]) => `${name}=${value}`).join("; ")
  }

  set cookie(line: string) {
    this.writes.push(line)
    const [pair = "", ...attributes] = line.split(";")
    const separator = pair.indexOf("=")
    const name = pair.slice(0, separator).trim()
    const value = pair.slice(separator + 1).trim()
    const expired = attributes.some((attribute) => /^\s*max-age\s*=\s*0\s*$/i.test(attribute))
    if (expired) this.#jar.delete(name)
    else this.#jar.set(name, value)
  }
}

/** An in-memory stand-in with the API of `@react-native-async-storage/async-storage`. */
export const fakeAsyncStorage = (): AsyncStorageLike & {
  readonly entries: Map<string, string>
} => {
  const entries = new Map<string, string>()
  return {
    entries,
    getItem: async (key) => entries.get(key) ?? null,
    setItem: async (key, value) => {
      entries.set(key, value)
    },
    removeItem: async (key) => {
      entries.delete(key)
    }
  }
}
