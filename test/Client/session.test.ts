import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { memoryStorage } from "../../src/Storage/MemoryStorage.js"
import type { StorageAdapter } from "../../src/Storage/StorageAdapter.js"
import { createSvc } from "../../src/v3/Client/index.js"
import { json, startServer, type TestServer } from "./server.js"
import { nodeTransports } from "./transports.js"

let server: TestServer
let other: TestServer
beforeAll(async () => {
  server = await startServer()
  other = await startServer()
})
afterAll(async () => {
  await server.close()
  await other.close()
})

const sentSession = () => server.requests[server.requests.length - 1]!.headers["x-session-id"]

const failingStorage = (): StorageAdapter => ({
  getItem: () => Promise.reject(new Error("storage down")),
  setItem: () => Promise.reject(new Error("storage down")),
  removeItem: () => Promise.reject(new Error("storage down"))
})

describe("session sources and precedence", () => {
  it("setSessionId > config.sessionId > getSessionId() > storage", async () => {
    const storage = memoryStorage([["sid", "from-storage"]])
    let callbackValue: string | null = "from-callback"
    const svc = createSvc(server.origin, { storage, getSessionId: () => callbackValue })
    await svc.get("/s")
    expect(sentSession()).toBe("from-callback")
    callbackValue = null
    await svc.get("/s")
    expect(sentSession()).toBe("from-storage")

    const configured = createSvc(server.origin, {
      sessionId: "from-config",
      getSessionId: () => "from-callback",
      storage
    })
    await configured.get("/s")
    expect(sentSession()).toBe("from-config")
    const pending = configured.setSessionId("from-setter")
    await configured.get("/s")
    expect(sentSession()).toBe("from-setter")
    await pending
  })

  it("accepts an async getSessionId", async () => {
    const svc = createSvc(server.origin, { getSessionId: async () => "async-id" })
    await svc.get("/s")
    expect(sentSession()).toBe("async-id")
  })

  it("reads storage keys in the pinned order, skipping invalid values", async () => {
    const storage = memoryStorage([
      ["sid", "last"],
      ["session_id", "has space"],
      ["sessionId", "third-key"]
    ])
    await createSvc(server.origin, { storage }).get("/s")
    expect(sentSession()).toBe("third-key")
  })

  it("a throwing or rejecting getSessionId means no session, reported to onError", async () => {
    for (const getSessionId of [
      () => {
        throw new Error("callback broke")
      },
      () => Promise.reject(new Error("callback broke"))
    ]) {
      const errors: Array<Error> = []
      const response = await createSvc(server.origin, {
        getSessionId,
        onError: (e) => errors.push(e)
      }).get("/s")
      expect(response.success).toBe(true)
      expect(sentSession()).toBeUndefined()
      expect(errors.map((e) => e.message)).toEqual(["callback broke"])
    }
  })

  it("a failing storage never breaks a request or a session call", async () => {
    const errors: Array<Error> = []
    const svc = createSvc(server.origin, {
      storage: failingStorage(),
      onError: (e) => errors.push(e)
    })
    expect((await svc.get("/s")).success).toBe(true)
    expect(sentSession()).toBeUndefined()
    await expect(svc.setSessionId("kept-in-memory")).resolves.toBeUndefined()
    await svc.get("/s")
    expect(sentSession()).toBe("kept-in-memory")
    await expect(svc.clearSession()).resolves.toBeUndefined()
    await expect(svc.hasSession()).resolves.toBe(false)
    expect(errors.length).toBeGreaterThanOrEqual(4)
    expect(errors.every((e) => e instanceof Error)).toBe(true)
  })
})

describe("setSessionId, clearSession, getSessionId, hasSession", () => {
  it("persist to and clear from storage", async () => {
    const storage = memoryStorage([["session_id", "old"]])
    const svc = createSvc(server.origin, { storage })
    expect(await svc.getSessionId()).toBe("old")
    await svc.setSessionId("new-id")
    expect(await storage.getItem("svc_session_id")).toBe("new-id")
    expect(await svc.getSessionId()).toBe("new-id")
    expect(await svc.hasSession()).toBe(true)
    await svc.clearSession()
    expect(await storage.getItem("svc_session_id")).toBeNull()
    expect(await storage.getItem("session_id")).toBeNull()
    expect(await svc.getSessionId()).toBeNull()
    expect(await svc.hasSession()).toBe(false)
    await svc.get("/s")
    expect(sentSession()).toBeUndefined()
  })

  it("clearSession also forgets config.sessionId until the next setSessionId", async () => {
    const svc = createSvc(server.origin, { sessionId: "configured" })
    await svc.clearSession()
    await svc.get("/s")
    expect(sentSession()).toBeUndefined()
    await svc.setSessionId("again")
    await svc.get("/s")
    expect(sentSession()).toBe("again")
  })

  it.each(["", "has space", "x".repeat(513), "tab\there", 42])(
    "setSessionId(%j) throws a TypeError",
    (id) => {
      const svc = createSvc(server.origin)
      expect(() => svc.setSessionId(id as string)).toThrow(TypeError)
    }
  )

  it("an invalid config.sessionId throws a TypeError at construction", () => {
    expect(() => createSvc(server.origin, { sessionId: "a b" })).toThrow(/sessionId/)
  })
})

describe("where the session is sent", () => {
  it("uses X-Session-Id by default, or sessionHeader", async () => {
    await createSvc(server.origin, { sessionId: "s1" }).get("/s")
    expect(sentSession()).toBe("s1")
    await createSvc(server.origin, { sessionId: "s2", sessionHeader: "X-Custom-Session" }).get("/s")
    const headers = server.requests[server.requests.length - 1]!.headers
    expect(headers["x-custom-session"]).toBe("s2")
    expect(headers["x-session-id"]).toBeUndefined()
  })

  it("includeSession:false globally or per request; the per-request value wins", async () => {
    const off = createSvc(server.origin, { sessionId: "s", includeSession: false })
    await off.get("/s")
    expect(sentSession()).toBeUndefined()
    await off.get("/s", { includeSession: true })
    expect(sentSession()).toBe("s")
    const on = createSvc(server.origin, { sessionId: "s" })
    await on.get("/s", { includeSession: false })
    expect(sentSession()).toBeUndefined()
  })

  it("does not call getSessionId when the session is not included", async () => {
    let calls = 0
    const svc = createSvc(server.origin, {
      includeSession: false,
      getSessionId: () => {
        calls++
        return "x"
      }
    })
    await svc.get("/s")
    expect(calls).toBe(0)
  })

  it("is only sent to the base URL's origin", async () => {
    const svc = createSvc(`${server.origin}/api`, { sessionId: "secret" })
    await svc.get(`${other.origin}/elsewhere`)
    expect(other.requests[other.requests.length - 1]!.headers["x-session-id"]).toBeUndefined()
    await svc.get(`${server.origin}/other-path`)
    expect(sentSession()).toBe("secret")
  })

  it("is not sent to URLs that merely start with the base URL's text", async () => {
    const base = server.origin // http://127.0.0.1:<port>
    const seen: Array<string | undefined> = []
    const svc = createSvc(base, {
      sessionId: "secret",
      retryAttempts: 0,
      onRequest: (config) => {
        seen.push(config.headers["x-session-id"])
        return config
      }
    })
    // another host or port spelled onto the base URL's text: not a URL at all, nothing sent
    for (const url of [`${base}.evil.example/x`, `${base}0/x`]) {
      expect(await svc.get(url)).toMatchObject({
        success: false,
        code: "INVALID_REQUEST",
        error: "endpoint is not a valid URL"
      })
    }
    // user info: really `other`; a URL with user info is refused, nothing sent
    expect(await svc.get(`${base}@${other.origin.slice("http://".length)}/steal`)).toMatchObject({
      code: "INVALID_REQUEST",
      error:
        "endpoint must not hold user info (user:password@): send credentials in an Authorization header"
    })
    expect(seen).toEqual([])
    const stolen = other.requests.filter((request) => request.path === "/steal")
    for (const request of stolen) expect(request.headers["x-session-id"]).toBeUndefined()
  })

  it("is taken out again when an interceptor points the request at another origin", async () => {
    const svc = createSvc(server.origin, { sessionId: "secret" })
    svc.addRequestInterceptor((config) => ({ ...config, url: `${other.origin}/moved` }))
    const response = await svc.get("/s")
    expect(response.success).toBe(true)
    const moved = other.requests[other.requests.length - 1]!
    expect(moved.path).toBe("/moved")
    expect(moved.headers["x-session-id"]).toBeUndefined()
  })

  it("is taken out whatever the case an interceptor leaves its name in (security item 7)", async () => {
    for (const name of ["X-SESSION-ID", "X-Session-Id", "x-SeSsIoN-iD"]) {
      const svc = createSvc(server.origin, { sessionId: "secret", retryAttempts: 0 })
      svc.addRequestInterceptor((config) => {
        const { "x-session-id": id, ...headers } = config.headers
        return { ...config, url: `${other.origin}/moved`, headers: { ...headers, [name]: id! } }
      })
      expect((await svc.get("/s")).success).toBe(true)
      const moved = other.requests[other.requests.length - 1]!
      expect(moved.path).toBe("/moved")
      expect(moved.headers["x-session-id"]).toBeUndefined()
      expect(JSON.stringify(moved.headers)).not.toContain("secret")
    }
  })

  it.each(nodeTransports)(
    "%s: Authorization from setHeader and a per-request Cookie never reach another origin (SPEC 4.5)",
    async (_, config) => {
      const svc = createSvc(server.origin, { ...config, sessionId: "secret", retryAttempts: 0 })
      svc.setHeader("Authorization", "Bearer secret-token")
      const before = other.requests.length
      const response = await svc.get(`${other.origin}/x`, { headers: { Cookie: "sid=secret" } })
      expect(response.success).toBe(true)
      expect(other.requests.length - before).toBe(1)
      const arrived = other.requests[other.requests.length - 1]!.headers
      expect([arrived.authorization, arrived.cookie, arrived["x-session-id"]]).toEqual([
        undefined,
        undefined,
        undefined
      ])
      expect(JSON.stringify(arrived)).not.toContain("secret")
      // on the base URL's origin they are sent
      await svc.get("/x", { headers: { Cookie: "sid=secret" } })
      expect(server.requests[server.requests.length - 1]!.headers.authorization).toBe(
        "Bearer secret-token"
      )
    }
  )

  it.each(nodeTransports)(
    "%s: credentials an interceptor leaves, in any case, go when it points elsewhere",
    async (_, config) => {
      const svc = createSvc(server.origin, { ...config, retryAttempts: 0 })
      svc.addRequestInterceptor((request) => ({
        ...request,
        url: `${other.origin}/moved`,
        headers: {
          ...request.headers,
          AUTHORIZATION: "Bearer t",
          CoOkIe: "a=b",
          "Proxy-Authorization": "Basic eA=="
        }
      }))
      expect((await svc.get("/s")).success).toBe(true)
      const moved = other.requests[other.requests.length - 1]!
      expect(moved.path).toBe("/moved")
      expect(moved.headers.authorization).toBeUndefined()
      expect(moved.headers.cookie).toBeUndefined()
      expect(moved.headers["proxy-authorization"]).toBeUndefined()
    }
  )

  it("an interceptor's URL with another scheme is INVALID_REQUEST, nothing sent", async () => {
    const svc = createSvc(server.origin, { retryAttempts: 0 })
    svc.addRequestInterceptor((request) => ({ ...request, url: `blob:${server.origin}/x` }))
    const before = server.requests.length
    expect(await svc.get("/s")).toMatchObject({
      success: false,
      status: 0,
      code: "INVALID_REQUEST",
      error:
        'RequestConfig.url (from an interceptor or onRequest) must be an http: or https: URL, got a "blob:" URL'
    })
    expect(server.requests.length).toBe(before)
  })

  it("a name given twice in two cases is sent once, the later spelling winning", async () => {
    const svc = createSvc(server.origin, { retryAttempts: 0 })
    svc.addRequestInterceptor((config) => ({
      ...config,
      headers: { ...config.headers, "x-trace": "first", "X-Trace": "second" }
    }))
    await svc.get("/s")
    expect(sentSession()).toBeUndefined()
    expect(server.requests[server.requests.length - 1]!.headers["x-trace"]).toBe("second")
  })

  it.each(nodeTransports)(
    "%s: the session header goes home only, wherever and however it was set (SPEC 4.5)",
    async (_, config) => {
      const sessions = ["SETHEADER", "PERREQUEST", "CONFIGURED", "INTERCEPTED"]
      const svc = createSvc(server.origin, { ...config, retryAttempts: 0 })
      svc.setHeader("X-Session-Id", "SETHEADER")
      await svc.get(`${other.origin}/a`)
      await svc.get(`${other.origin}/b`, { headers: { "x-session-id": "PERREQUEST" } })
      await createSvc(server.origin, {
        ...config,
        sessionHeader: "X-My-Sess",
        headers: { "X-MY-SESS": "CONFIGURED" }
      }).get(`${other.origin}/c`)
      const moved = createSvc(server.origin, { ...config, sessionId: "s" })
      moved.addRequestInterceptor((request) => ({
        ...request,
        url: `${other.origin}/d`,
        headers: { ...request.headers, "X-SESSION-ID": "INTERCEPTED" }
      }))
      await moved.get("/s")
      const arrived = other.requests.filter((r) => ["/a", "/b", "/c", "/d"].includes(r.path))
      expect(arrived.map((r) => r.path)).toEqual(["/a", "/b", "/c", "/d"])
      for (const request of arrived) {
        for (const id of sessions) expect(JSON.stringify(request.headers)).not.toContain(id)
      }
      other.requests.length = 0
      // at home, the session header set by hand is sent
      await svc.get("/home")
      expect(server.requests[server.requests.length - 1]!.headers["x-session-id"]).toBe("SETHEADER")
    }
  )
})

describe("a fetch that follows redirects itself (React Native's, over XHR)", () => {
  it("fails at once, never retried: the session reaches the redirect's other origin once", async () => {
    const moved = await startServer((request) =>
      request.path === "/go"
        ? { status: 302, headers: { location: `${other.origin}/x` } }
        : request.path === "/here"
          ? { status: 302, headers: { location: "/x" } }
          : json({ ok: true })
    )
    try {
      const before = other.requests.length
      const errors: Array<Error> = []
      const svc = createSvc(moved.origin, {
        sessionId: "s3cret",
        onError: (error) => errors.push(error),
        // asked for `redirect: "manual"`, it follows all the same
        fetch: (input, init) => globalThis.fetch(input, { ...init, redirect: "follow" })
      })
      const response = await svc.get("/go")
      expect(response).toMatchObject({ success: false, code: "NETWORK_ERROR" })
      expect(response.error).toMatch(/fetch followed a redirect itself/)
      expect(errors[0]).toMatchObject({ permanent: true })
      expect(moved.requests).toHaveLength(1)
      expect(other.requests.length - before).toBe(1)
      // one it followed on the same origin keeps the session where it may go: its answer stands
      const plain = await createSvc(moved.origin, {
        sessionId: "s3cret",
        fetch: (input, init) => globalThis.fetch(input, { ...init, redirect: "follow" })
      }).get("/here")
      expect(plain).toMatchObject({ success: true, status: 200 })
      expect(moved.requests.map((request) => request.path)).toEqual(["/go", "/here", "/x"])
    } finally {
      await moved.close()
    }
  })
})

describe("which ids are sent (security item 8)", () => {
  it("config.sessionId with a C1 control or non-ASCII throws at construction", () => {
    for (const id of ["abc\u0085def", "abc\u009bdef", "ünï", "a b"]) {
      expect(() => createSvc(server.origin, { sessionId: id })).toThrow(
        /sessionId must be 1 to 512 visible ASCII characters/
      )
    }
  })

  it("an id from getSessionId or storage with a C1 control is never sent; onError is told", async () => {
    const errors: Array<Error> = []
    const svc = createSvc(server.origin, {
      getSessionId: () => "abc\u0085def",
      onError: (error) => errors.push(error)
    })
    await svc.get("/s")
    expect(sentSession()).toBeUndefined()
    expect(errors.map((error) => error.message)).toEqual([
      "getSessionId returned a value that is not a session id (1 to 512 visible ASCII characters)"
    ])
    const stored = createSvc(server.origin, { storage: memoryStorage([["sid", "abc\u009bdef"]]) })
    await stored.get("/s")
    expect(sentSession()).toBeUndefined()
  })

  it("setSessionId refuses a C1 control with a TypeError that does not show the id", () => {
    const svc = createSvc(server.origin)
    expect(() => svc.setSessionId("secret\u0085")).toThrow(TypeError)
    try {
      void svc.setSessionId("secret\u0085")
    } catch (error) {
      expect((error as Error).message).not.toContain("secret")
    }
  })
})
