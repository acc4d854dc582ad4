import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  browserStorage,
  clearSessionId,
  combinedStorage,
  findSessionId,
  isValidSessionId,
  MAX_SESSION_ID_LENGTH,
  memoryStorage,
  SESSION_KEYS,
  SESSION_STORAGE_KEY,
  type StorageAdapter,
  saveSessionId,
  webStorage
} from "../../src/Storage/index.js"
import { blockedWebStorage, FakeCookieDocument, FakeWebStorage, fakeAsyncStorage } from "./fakes.js"

const browserScope = () => ({
  localStorage: new FakeWebStorage(),
  sessionStorage: new FakeWebStorage(),
  document: new FakeCookieDocument()
})

const failing = (error: unknown): StorageAdapter => ({
  getItem: () => Promise.reject(error),
  setItem: () => Promise.reject(error),
  removeItem: () => Promise.reject(error)
})

describe("detection order across keys", () => {
  it("pins the key order", () => {
    expect(SESSION_KEYS).toEqual([
      "svc_session_id",
      "session_id",
      "sessionId",
      "svc-session-id",
      "session-id",
      "sid"
    ])
    expect(SESSION_STORAGE_KEY).toBe("svc_session_id")
  })

  it("takes the earliest key present, whatever else is stored", async () => {
    for (const [index, key] of SESSION_KEYS.entries()) {
      const later = SESSION_KEYS.slice(index + 1).map((k) => [k, `later-${k}`] as const)
      const storage = memoryStorage([...later, [key, "winner"]])
      await expect(findSessionId(storage)).resolves.toBe("winner")
    }
  })

  it("skips an invalid value under an earlier key", async () => {
    const storage = memoryStorage([
      ["svc_session_id", "   "],
      ["session_id", "has space"],
      ["sid", "good"]
    ])
    await expect(findSessionId(storage)).resolves.toBe("good")
  })

  it("ignores keys outside the pinned list", async () => {
    const storage = memoryStorage([
      ["SESSION_ID", "x"],
      ["token", "y"]
    ])
    await expect(findSessionId(storage)).resolves.toBeUndefined()
  })
})

describe("detection order across browser storages", () => {
  it("reads every key in localStorage before sessionStorage, and both before the cookie", async () => {
    const scope = browserScope()
    scope.document.cookie = "session_id=from-cookie"
    await expect(findSessionId(browserStorage(scope))).resolves.toBe("from-cookie")
    scope.sessionStorage.setItem("svc_session_id", "from-session")
    await expect(findSessionId(browserStorage(scope))).resolves.toBe("from-session")
    scope.localStorage.setItem("sid", "from-local-sid")
    await expect(findSessionId(browserStorage(scope))).resolves.toBe("from-local-sid")
  })

  it("falls through a storage whose only value is invalid", async () => {
    const scope = browserScope()
    scope.localStorage.setItem("svc_session_id", "x".repeat(MAX_SESSION_ID_LENGTH + 1))
    scope.sessionStorage.setItem("sessionId", "from-session")
    await expect(findSessionId(browserStorage(scope))).resolves.toBe("from-session")
  })

  it("finds a storage's id even when an earlier storage fails", async () => {
    const scope = { ...browserScope(), localStorage: blockedWebStorage() }
    scope.document.cookie = "session_id=from-cookie"
    await expect(findSessionId(browserStorage(scope))).resolves.toBe("from-cookie")
  })

  it("rejects with the failure when a storage failed and no other held an id", async () => {
    const scope = { ...browserScope(), localStorage: blockedWebStorage() }
    await expect(findSessionId(browserStorage(scope))).rejects.toMatchObject({
      name: "SecurityError"
    })
  })

  it("searches nested combined storages store by store", async () => {
    const inner = combinedStorage([memoryStorage(), memoryStorage([["sid", "inner-sid"]])])
    const outer = combinedStorage([inner, memoryStorage([["svc_session_id", "outer"]])])
    await expect(findSessionId(outer)).resolves.toBe("inner-sid")
  })
})

describe("which values count as a session id", () => {
  const rejected: ReadonlyArray<readonly [string, unknown]> = [
    ["empty", ""],
    ["a space", " "],
    ["inner whitespace", "abc def"],
    ["a tab", "abc\tdef"],
    ["a newline", "abc\n"],
    ["a non-breaking space", "abc\u00a0def"],
    ["NUL", "abc\u0000"],
    ["DEL", "abc\u007f"],
    ["a C1 next-line control (U+0085, item 8 of the security issue)", "abc\u0085def"],
    ["a C1 control sequence introducer (U+009B)", "abc\u009bdef"],
    ["non-ASCII letters", "ünïcødé"],
    ["an astral character", "id-\u{1f600}"],
    ["513 characters", "a".repeat(513)],
    ["a number", 42],
    ["null", null],
    ["undefined", undefined]
  ]

  it.each(rejected)("rejects %s", async (_label, value) => {
    expect(isValidSessionId(value)).toBe(false)
    const storage: StorageAdapter = {
      ...memoryStorage(),
      getItem: async () => value as string | null
    }
    await expect(findSessionId(storage)).resolves.toBeUndefined()
  })

  it("accepts exactly 512 characters and common id alphabets", async () => {
    for (const id of ["a".repeat(512), "abc123", "eyJhbGciOi.J9.x-_~+/=", "!~"]) {
      expect(isValidSessionId(id)).toBe(true)
      await expect(findSessionId(memoryStorage([["sid", id]]))).resolves.toBe(id)
    }
  })

  it("agrees with its definition on arbitrary strings", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 600, unit: "binary" }), fc.string({ maxLength: 600 })),
        (value) => {
          const expected =
            value.length >= 1 &&
            value.length <= 512 &&
            [...value].every((char) => char >= "\u0021" && char <= "\u007e")
          expect(isValidSessionId(value)).toBe(expected)
        }
      )
    )
  })
})

describe("saving and clearing", () => {
  it("saves under svc_session_id, so a reload finds it first", async () => {
    const storage = new FakeWebStorage()
    storage.setItem("session_id", "older")
    await saveSessionId(webStorage(storage), "fresh")
    expect(storage.getItem("svc_session_id")).toBe("fresh")
    await expect(findSessionId(webStorage(storage))).resolves.toBe("fresh")
  })

  it("rejects an invalid id with a TypeError that does not show it", async () => {
    const storage = memoryStorage()
    for (const id of ["", "has space", "x".repeat(513)]) {
      const error = await saveSessionId(storage, id).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toMatch(/saveSessionId: id/)
      if (id !== "") expect((error as Error).message).not.toContain(id)
    }
    await expect(storage.getItem("svc_session_id")).resolves.toBeNull()
  })

  it("in a browser writes localStorage and survives a reload", async () => {
    const scope = browserScope()
    await saveSessionId(browserStorage(scope), "persisted")
    expect(scope.localStorage.getItem("svc_session_id")).toBe("persisted")
    expect(scope.sessionStorage.length).toBe(0)
    await expect(findSessionId(browserStorage(scope))).resolves.toBe("persisted")
  })

  it("in a browser falls back to sessionStorage when localStorage is full", async () => {
    const scope = { ...browserScope(), localStorage: new FakeWebStorage({ quota: 0 }) }
    await saveSessionId(browserStorage(scope), "in-session")
    expect(scope.sessionStorage.getItem("svc_session_id")).toBe("in-session")
    await expect(findSessionId(browserStorage(scope))).resolves.toBe("in-session")
  })

  it("in a browser, a write that falls back leaves no older id ahead of it (localStorage full)", async () => {
    const scope = { ...browserScope(), localStorage: new FakeWebStorage({ quota: 40 }) }
    await saveSessionId(browserStorage(scope), "the-older-session")
    expect(scope.localStorage.getItem("svc_session_id")).toBe("the-older-session")
    // a rotated id too long for what localStorage has left: sessionStorage takes it
    await saveSessionId(browserStorage(scope), "the-rotated-session-of-a-new-login")
    expect(scope.sessionStorage.getItem("svc_session_id")).toBe(
      "the-rotated-session-of-a-new-login"
    )
    expect(scope.localStorage.getItem("svc_session_id")).toBeNull()
    await expect(findSessionId(browserStorage(scope))).resolves.toBe(
      "the-rotated-session-of-a-new-login"
    )
  })

  it("a write that falls back past a storage that refuses everything succeeds", async () => {
    const storage = combinedStorage([webStorage(blockedWebStorage()), memoryStorage()])
    await storage.setItem("svc_session_id", "kept")
    await expect(storage.getItem("svc_session_id")).resolves.toBe("kept")
  })

  it("in a browser clears every pinned key from every storage, the cookie included", async () => {
    const scope = browserScope()
    for (const key of SESSION_KEYS) {
      scope.localStorage.setItem(key, "l")
      scope.sessionStorage.setItem(key, "s")
    }
    scope.localStorage.setItem("theme", "dark")
    scope.document.cookie = "session_id=c"
    await clearSessionId(browserStorage(scope))
    expect(scope.localStorage.length).toBe(1)
    expect(scope.sessionStorage.length).toBe(0)
    expect(scope.document.cookie).toBe("")
    await expect(findSessionId(browserStorage(scope))).resolves.toBeUndefined()
  })

  it("clears through AsyncStorage", async () => {
    const storage = fakeAsyncStorage()
    storage.entries.set("sid", "x")
    storage.entries.set("other", "kept")
    const { asyncStorage } = await import("../../src/Storage/index.js")
    await clearSessionId(asyncStorage(storage))
    expect([...storage.entries.keys()]).toEqual(["other"])
  })
})

describe("failure paths", () => {
  it("findSessionId rejects when the adapter rejects", async () => {
    const error = new Error("disk unavailable")
    await expect(findSessionId(failing(error))).rejects.toBe(error)
  })

  it("findSessionId rejects when the adapter throws instead of rejecting", async () => {
    const storage: StorageAdapter = {
      ...memoryStorage(),
      getItem: () => {
        throw new Error("sync throw")
      }
    }
    await expect(findSessionId(storage)).rejects.toThrow("sync throw")
  })

  it("webStorage turns SecurityError and QuotaExceededError into rejections", async () => {
    const blocked = webStorage(blockedWebStorage())
    const pending = blocked.getItem("sid")
    expect(pending).toBeInstanceOf(Promise)
    await expect(pending).rejects.toMatchObject({ name: "SecurityError" })
    await expect(blocked.removeItem("sid")).rejects.toMatchObject({ name: "SecurityError" })
    const full = webStorage(new FakeWebStorage({ quota: 3 }))
    await expect(full.setItem("svc_session_id", "x")).rejects.toMatchObject({
      name: "QuotaExceededError"
    })
  })

  it("webStorage over a getter turns a throwing access into a rejection", async () => {
    const adapter = webStorage(() => {
      throw new DOMException("denied", "SecurityError")
    })
    await expect(adapter.getItem("sid")).rejects.toMatchObject({ name: "SecurityError" })
  })

  it("asyncStorage turns a method that throws into a rejection", async () => {
    const { asyncStorage } = await import("../../src/Storage/index.js")
    const adapter = asyncStorage({
      getItem: () => {
        throw new Error("native module missing")
      },
      setItem: async () => {},
      removeItem: async () => {}
    })
    await expect(adapter.getItem("sid")).rejects.toThrow("native module missing")
  })

  it("saveSessionId rejects when every browser storage refuses", async () => {
    const scope = {
      localStorage: blockedWebStorage(),
      sessionStorage: new FakeWebStorage({ quota: 0 }),
      document: new FakeCookieDocument()
    }
    await expect(saveSessionId(browserStorage(scope), "x")).rejects.toMatchObject({
      name: "SecurityError"
    })
  })

  it("clearSessionId tries every key, then rejects with the first failure", async () => {
    const removed: Array<string> = []
    const storage: StorageAdapter = {
      ...memoryStorage(),
      removeItem: async (key) => {
        removed.push(key)
        if (key === "session_id") throw new Error("cannot remove")
      }
    }
    await expect(clearSessionId(storage)).rejects.toThrow("cannot remove")
    expect(removed).toEqual([...SESSION_KEYS])
  })
})
