import { describe, expect, it } from "vitest"
import {
  asyncStorage,
  browserStorage,
  combinedStorage,
  cookieStorage,
  findSessionId,
  memoryStorage,
  webStorage
} from "../../src/Storage/index.js"
import { storageContract } from "./contract.js"
import { FakeCookieDocument, FakeWebStorage, fakeAsyncStorage } from "./fakes.js"

storageContract("memoryStorage", () => {
  const adapter = memoryStorage()
  return { adapter, reopen: () => adapter }
})

storageContract("webStorage over a Storage object", () => {
  const storage = new FakeWebStorage()
  return { adapter: webStorage(storage), reopen: () => webStorage(storage) }
})

storageContract("webStorage over a getter", () => {
  const storage = new FakeWebStorage()
  return { adapter: webStorage(() => storage), reopen: () => webStorage(storage) }
})

storageContract("asyncStorage over AsyncStorage's API", () => {
  const storage = fakeAsyncStorage()
  return { adapter: asyncStorage(storage), reopen: () => asyncStorage({ default: storage }) }
})

storageContract("combinedStorage", () => {
  const [first, second] = [memoryStorage(), memoryStorage()]
  return {
    adapter: combinedStorage([first, second]),
    reopen: () => combinedStorage([first, second])
  }
})

storageContract("browserStorage", () => {
  const scope = {
    localStorage: new FakeWebStorage(),
    sessionStorage: new FakeWebStorage(),
    document: new FakeCookieDocument()
  }
  return { adapter: browserStorage(scope), reopen: () => browserStorage(scope) }
})

describe("webStorage", () => {
  it("stores strings in the Storage object itself", async () => {
    const storage = new FakeWebStorage()
    await webStorage(storage).setItem("svc_session_id", "abc")
    expect(storage.getItem("svc_session_id")).toBe("abc")
    expect(storage.length).toBe(1)
  })

  it("rejects a storage without the Web Storage methods, naming the argument", () => {
    expect(() => webStorage({} as never)).toThrow(TypeError)
    expect(() => webStorage(null as never)).toThrow(/webStorage: storage/)
  })

  it("rejects at the operation when a getter gives no storage", async () => {
    const adapter = webStorage(() => undefined as never)
    await expect(adapter.getItem("sid")).rejects.toThrow(/webStorage: storage/)
  })
})

describe("cookieStorage", () => {
  it("reads only the session_id cookie, percent-decoded", async () => {
    const document = new FakeCookieDocument()
    document.cookie = "theme=dark"
    document.cookie = "session_id=a%2Fb%3D"
    document.cookie = "sid=elsewhere"
    const cookies = cookieStorage(document)
    await expect(cookies.getItem("session_id")).resolves.toBe("a/b=")
    await expect(cookies.getItem("sid")).resolves.toBeNull()
    await expect(cookies.getItem("svc_session_id")).resolves.toBeNull()
  })

  it("reads a quoted value without its quotes, as the server's cookie parser does", async () => {
    const document = new FakeCookieDocument()
    document.cookie = 'session_id="abc/123="'
    await expect(cookieStorage(document).getItem("session_id")).resolves.toBe("abc/123=")
    await expect(findSessionId(cookieStorage(document))).resolves.toBe("abc/123=")
    // a lone quote is part of the value
    document.cookie = 'session_id="abc'
    await expect(cookieStorage(document).getItem("session_id")).resolves.toBe('"abc')
  })

  it("does not mistake a cookie whose name merely ends in session_id", async () => {
    const document = new FakeCookieDocument()
    document.cookie = "old_session_id=stale"
    await expect(cookieStorage(document).getItem("session_id")).resolves.toBeNull()
  })

  it("keeps a value that is not valid percent-encoding as it is", async () => {
    const document = new FakeCookieDocument()
    document.cookie = "session_id=100%"
    await expect(cookieStorage(document).getItem("session_id")).resolves.toBe("100%")
  })

  it("writes and expires a script-visible session_id cookie on Path=/", async () => {
    const document = new FakeCookieDocument()
    const cookies = cookieStorage(document)
    await cookies.setItem("session_id", "x y")
    expect(document.writes.at(-1)).toBe("session_id=x%20y; Path=/; SameSite=Lax")
    await expect(cookies.getItem("session_id")).resolves.toBe("x y")
    await cookies.removeItem("session_id")
    expect(document.writes.at(-1)).toBe("session_id=; Path=/; Max-Age=0")
    await expect(cookies.getItem("session_id")).resolves.toBeNull()
  })

  it("refuses to write other keys, and ignores removing them", async () => {
    const document = new FakeCookieDocument()
    const cookies = cookieStorage(document)
    await expect(cookies.setItem("svc_session_id", "x")).rejects.toThrow(RangeError)
    await expect(cookies.removeItem("svc_session_id")).resolves.toBeUndefined()
    expect(document.writes).toEqual([])
  })

  it("throws a TypeError when there is no document", () => {
    expect(() => cookieStorage()).toThrow(/cookieStorage: document/)
  })
})

describe("asyncStorage", () => {
  it("accepts AsyncStorage, its module namespace, and a CommonJS double default", async () => {
    const storage = fakeAsyncStorage()
    storage.entries.set("sid", "s1")
    for (const module of [storage, { default: storage }, { default: { default: storage } }]) {
      await expect(asyncStorage(module as never).getItem("sid")).resolves.toBe("s1")
    }
  })

  it("turns undefined from getItem into null", async () => {
    const adapter = asyncStorage({
      getItem: async () => undefined,
      setItem: async () => {},
      removeItem: async () => {}
    })
    await expect(adapter.getItem("sid")).resolves.toBeNull()
  })

  it("throws a TypeError for something without AsyncStorage's API", () => {
    expect(() => asyncStorage({} as never)).toThrow(/asyncStorage: module/)
    expect(() => asyncStorage({ default: 1 } as never)).toThrow(TypeError)
  })
})

describe("combinedStorage", () => {
  it("reads the first store holding the key", async () => {
    const first = memoryStorage([["sid", "from-first"]])
    const second = memoryStorage([
      ["sid", "from-second"],
      ["sessionId", "only-second"]
    ])
    const storage = combinedStorage([first, second])
    await expect(storage.getItem("sid")).resolves.toBe("from-first")
    await expect(storage.getItem("sessionId")).resolves.toBe("only-second")
    expect(storage.stores).toEqual([first, second])
  })

  it("writes the first store and removes from all", async () => {
    const first = memoryStorage()
    const second = memoryStorage([["sid", "old"]])
    const storage = combinedStorage([first, second])
    await storage.setItem("sid", "new")
    await expect(first.getItem("sid")).resolves.toBe("new")
    await expect(second.getItem("sid")).resolves.toBe("old")
    await storage.removeItem("sid")
    await expect(first.getItem("sid")).resolves.toBeNull()
    await expect(second.getItem("sid")).resolves.toBeNull()
  })

  it("rejects writes when there is no store", async () => {
    await expect(combinedStorage([]).setItem("sid", "x")).rejects.toThrow(RangeError)
    await expect(combinedStorage([]).getItem("sid")).resolves.toBeNull()
  })

  it("throws a TypeError naming the element that is not an adapter", () => {
    expect(() => combinedStorage([memoryStorage(), {} as never])).toThrow(/stores\[1\]/)
    expect(() => combinedStorage("x" as never)).toThrow(TypeError)
  })
})

describe("browserStorage", () => {
  it("combines localStorage, sessionStorage and the cookie, in that order", async () => {
    const scope = {
      localStorage: new FakeWebStorage(),
      sessionStorage: new FakeWebStorage(),
      document: new FakeCookieDocument()
    }
    const storage = browserStorage(scope)
    expect(storage.stores).toHaveLength(3)
    scope.document.cookie = "session_id=c"
    await expect(storage.getItem("session_id")).resolves.toBe("c")
    scope.sessionStorage.setItem("session_id", "s")
    await expect(storage.getItem("session_id")).resolves.toBe("s")
    scope.localStorage.setItem("session_id", "l")
    await expect(storage.getItem("session_id")).resolves.toBe("l")
  })

  it("leaves out storages that are absent or throw on access", () => {
    const scope = {
      get localStorage(): never {
        throw new DOMException("denied", "SecurityError")
      },
      sessionStorage: new FakeWebStorage()
    }
    expect(browserStorage(scope).stores).toHaveLength(1)
    expect(browserStorage({}).stores).toHaveLength(0)
  })

  it("throws a TypeError for a scope that is not an object", () => {
    expect(() => browserStorage(null as never)).toThrow(/browserStorage: scope/)
  })
})
