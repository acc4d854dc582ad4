import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc, type RequestConfig, type SvcConfig } from "../../src/v3/Client/index.js"
import { json, startServer, type TestServer } from "./server.js"
import { withClient } from "./transports.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() => json({ data: { n: 1 }, success: true }))
})
afterAll(() => server.close())

const last = () => server.requests[server.requests.length - 1]!

describe("interceptors and callbacks", () => {
  it("run in order: request interceptors, onRequest, response interceptors, onResponse", async () => {
    const order: Array<string> = []
    const svc = createSvc(server.origin, {
      onRequest: (config) => {
        order.push(`onRequest:${config.headers["x-step"]}`)
        return config
      },
      onResponse: (response) => {
        order.push(`onResponse:${response.message}`)
      }
    })
    svc.addRequestInterceptor((config) => {
      order.push("request1")
      return { ...config, headers: { ...config.headers, "x-step": "1" } }
    })
    svc.addRequestInterceptor(async (config) => {
      order.push("request2")
      return { ...config, headers: { ...config.headers, "x-step": `${config.headers["x-step"]}2` } }
    })
    svc.addResponseInterceptor((response) => {
      order.push("response1")
      return { ...response, message: "a" }
    })
    svc.addResponseInterceptor(async (response) => {
      order.push("response2")
      return { ...response, message: `${response.message}b` }
    })
    const response = await svc.get("/x")
    expect(order).toEqual([
      "request1",
      "request2",
      "onRequest:12",
      "response1",
      "response2",
      "onResponse:ab"
    ])
    expect(last().headers["x-step"]).toBe("12")
    expect(response).toEqual({
      success: true,
      status: 200,
      data: { n: 1 },
      message: "ab",
      headers: expect.objectContaining({ "content-type": "application/json" })
    })
  })

  it("a request interceptor sees the full config and may change url, method and body", async () => {
    let seen: RequestConfig | undefined
    const svc = createSvc(`${server.origin}/api`, { headers: { "X-A": "1" }, timeout: 1234 })
    svc.addRequestInterceptor((config) => {
      seen = config
      return {
        ...config,
        method: "PUT",
        url: config.url.replace("/api/x", "/api/changed"),
        body: { changed: true }
      }
    })
    await svc.post("/x", { original: true }, { params: { p: 1 } })
    expect(seen).toMatchObject({
      method: "POST",
      url: `${server.origin}/api/x?p=1`,
      headers: { "x-a": "1" },
      body: { original: true },
      timeout: 1234
    })
    expect(last()).toMatchObject({ method: "PUT", path: "/api/changed" })
    expect(JSON.parse(last().body)).toEqual({ changed: true })
  })

  it.each([
    [
      "throws",
      () => {
        throw new Error("boom")
      }
    ],
    [
      "rejects",
      async () => {
        throw new Error("boom")
      }
    ],
    ["returns nothing", () => undefined as unknown as RequestConfig],
    // its entries are not its keys: it would go as no headers, the session's included
    [
      "returns headers as a Headers object",
      (config: RequestConfig) =>
        ({ ...config, headers: new Headers(config.headers) }) as unknown as RequestConfig
    ]
  ])(
    "a request interceptor that %s ends the request as INTERCEPTOR_ERROR, nothing sent",
    async (_, fn) => {
      const errors: Array<Error> = []
      const svc = createSvc(server.origin, { onError: (e) => errors.push(e) })
      svc.addRequestInterceptor(fn)
      const before = server.requests.length
      const response = await svc.get("/x")
      expect(response).toMatchObject({ success: false, status: 0, code: "INTERCEPTOR_ERROR" })
      expect(response.error).toMatch(/^Request interceptor failed/)
      expect(server.requests.length).toBe(before)
      expect(errors).toHaveLength(1)
      expect(errors[0]).toBeInstanceOf(Error)
    }
  )

  it("a throwing onRequest, response interceptor or onResponse is an INTERCEPTOR_ERROR", async () => {
    const onRequest = createSvc(server.origin, {
      onRequest: () => {
        throw new Error("no")
      }
    })
    expect((await onRequest.get("/x")).code).toBe("INTERCEPTOR_ERROR")
    const responseInterceptor = createSvc(server.origin)
    responseInterceptor.addResponseInterceptor(() => Promise.reject(new Error("no")))
    expect(await responseInterceptor.get("/x")).toMatchObject({
      success: false,
      status: 0,
      code: "INTERCEPTOR_ERROR"
    })
    const onResponse = createSvc(server.origin, {
      onResponse: () => {
        throw new Error("no")
      }
    })
    expect((await onResponse.get("/x")).code).toBe("INTERCEPTOR_ERROR")
  })

  it("a thrown value with no text (no prototype, a throwing toString) is an INTERCEPTOR_ERROR on both faces, never a defect", async () => {
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    const textless = [
      Object.create(null),
      {
        toString: () => {
          throw new Error("no text")
        }
      },
      // a revoked Proxy throws at every look, its prototype's included
      revocable.proxy
    ]
    for (const thrown of textless) {
      const hooks: ReadonlyArray<SvcConfig> = [
        {
          onRequest: () => {
            throw thrown
          }
        },
        { onResponse: () => Promise.reject(thrown) }
      ]
      for (const config of hooks) {
        expect(await createSvc(server.origin, config).get("/x")).toMatchObject({
          success: false,
          code: "INTERCEPTOR_ERROR",
          error: expect.stringMatching(/interceptor failed: an object$/)
        })
        const error = await Effect.runPromise(
          withClient(server.origin, config, (client) => Effect.flip(client.get("/x")))
        )
        expect(error._tag).toBe("InterceptorError")
        expect(error.cause).toBe(thrown)
      }
    }
  })

  it("an answer whose then getter throws is an INTERCEPTOR_ERROR naming what it threw", async () => {
    const trap = {
      // biome-ignore lint/suspicious/noThenProperty: the getter under test
      get then() {
        throw new Error("then exploded")
      }
    }
    const interceptor = createSvc(server.origin)
    interceptor.addRequestInterceptor(() => trap as never)
    const onResponse = createSvc(server.origin, { onResponse: () => trap })
    for (const svc of [interceptor, onResponse]) {
      expect(await svc.get("/x")).toMatchObject({
        success: false,
        status: 0,
        code: "INTERCEPTOR_ERROR",
        error: expect.stringContaining("then exploded")
      })
    }
  })

  it("onRequest is an observer: returning nothing is fine (security item 2)", async () => {
    const seen: Array<string> = []
    const svc = createSvc(server.origin, {
      onRequest: (config) => {
        seen.push(config.url)
      }
    })
    expect(await svc.get("/x")).toMatchObject({ success: true, status: 200 })
    const async = createSvc(server.origin, { onRequest: async () => undefined })
    expect(await async.get("/x")).toMatchObject({ success: true, status: 200 })
    expect(seen).toEqual([`${server.origin}/x`])
  })

  it("onRequest's return value is ignored: it cannot change the request", async () => {
    const svc = createSvc(server.origin, {
      onRequest: (config) => ({ ...config, url: `${server.origin}/elsewhere` }) as never
    })
    expect((await svc.get("/x")).success).toBe(true)
    expect(last().path).toBe("/x")
  })

  it("headers onRequest writes in place, in any case, keep the origin rules: no session or credentials elsewhere", async () => {
    const elsewhere = await startServer(() => json({ data: 1 }))
    try {
      const svc = createSvc(server.origin, {
        sessionId: "SID123",
        retryAttempts: 0,
        onRequest: (config) => {
          config.headers["X-Session-Id"] = "SID123"
          config.headers.Authorization = "Bearer T"
        }
      })
      await svc.get(`${elsewhere.origin}/x`)
      const abroad = elsewhere.requests[0]!.headers
      expect(abroad["x-session-id"]).toBeUndefined()
      expect(abroad.authorization).toBeUndefined()
      // at home, one session header (the names meet, whatever their case)
      await svc.get("/h")
      expect(last().headers["x-session-id"]).toBe("SID123")
      expect(last().headers.authorization).toBe("Bearer T")
    } finally {
      await elsewhere.close()
    }
  })

  it("a response interceptor sees a 401 and can refresh the session and send once more", async () => {
    const sessions = await startServer((request) =>
      request.headers["x-session-id"] === "fresh"
        ? json({ data: { me: "ada" }, success: true })
        : json({ error: "Invalid session" }, 401)
    )
    try {
      const refreshes: Array<string> = []
      const svc = createSvc(sessions.origin, { sessionId: "stale", retryAttempts: 0 })
      svc.addResponseInterceptor(async (response, config) => {
        if (response.status !== 401 || config.headers["x-refreshed"] !== undefined) return response
        refreshes.push(config.url)
        await svc.setSessionId("fresh") // e.g. from a refresh endpoint
        return svc.get(config.url, { headers: { "x-refreshed": "1" } })
      })
      const response = await svc.get("/me")
      expect(response).toMatchObject({ success: true, status: 200, data: { me: "ada" } })
      expect(refreshes).toEqual([`${sessions.origin}/me`])
      expect(sessions.requests.map((request) => request.headers["x-session-id"])).toEqual([
        "stale",
        "fresh"
      ])
    } finally {
      await sessions.close()
    }
  })

  it("response interceptors and onResponse see HTTP failures, with the request config", async () => {
    server.script = () => json({ error: "nope" }, 403)
    try {
      const seen: Array<string> = []
      const svc = createSvc(server.origin, {
        onResponse: (response) => {
          seen.push(`onResponse:${response.status}:${response.code}`)
        }
      })
      svc.addResponseInterceptor((response, config) => {
        seen.push(`interceptor:${response.status}:${config.method} ${config.url}`)
        return response
      })
      const response = await svc.get("/x")
      expect(response).toMatchObject({ success: false, status: 403, error: "nope" })
      expect(seen).toEqual([`interceptor:403:GET ${server.origin}/x`, "onResponse:403:HTTP_ERROR"])
    } finally {
      server.script = () => json({ data: { n: 1 }, success: true })
    }
  })

  it("a failure an interceptor turns into a success is a success", async () => {
    server.script = () => json({ error: "gone" }, 404)
    try {
      const svc = createSvc(server.origin)
      svc.addResponseInterceptor((response) =>
        response.status === 404 ? { success: true, status: 200, data: [] } : response
      )
      expect(await svc.get("/x")).toEqual({ success: true, status: 200, data: [] })
    } finally {
      server.script = () => json({ data: { n: 1 }, success: true })
    }
  })

  it("a success an interceptor turns into a failure is an HTTP_ERROR failure with its status, error and data", async () => {
    const svc = createSvc(server.origin)
    svc.addResponseInterceptor((response) =>
      response.success
        ? {
            success: false,
            status: 422,
            error: "refused by policy",
            code: "HTTP_ERROR",
            data: response.data
          }
        : response
    )
    const response = await svc.get("/x")
    expect(response).toMatchObject({
      success: false,
      status: 422,
      error: "refused by policy",
      code: "HTTP_ERROR",
      data: { n: 1 }
    })
  })

  it("a failure from an interceptor in plain JavaScript, without error or code, still has both", async () => {
    const errors: Array<Error> = []
    const svc = createSvc(server.origin, { onError: (error) => errors.push(error) })
    // what the types refuse, JavaScript can do: the runtime keeps the failure's promises anyway
    svc.addResponseInterceptor((response) => ({ success: false, status: response.status }) as never)
    const response = await svc.get("/x")
    expect(response).toMatchObject({
      success: false,
      status: 200,
      error: "HTTP 200",
      code: "HTTP_ERROR"
    })
    expect((errors[0] as { _tag?: string } | undefined)?._tag).toBe("HttpError")
  })

  it("onError receives an Error for every failure, and its own throw changes nothing", async () => {
    server.script = () => json({ error: "bad" }, 400)
    try {
      const received: Array<unknown> = []
      const svc = createSvc(server.origin, {
        onError: (error) => {
          received.push(error)
          throw new Error("onError blew up")
        }
      })
      const response = await svc.get("/x")
      expect(response).toMatchObject({
        success: false,
        status: 400,
        error: "bad",
        code: "HTTP_ERROR"
      })
      expect(received).toHaveLength(1)
      expect(received[0]).toBeInstanceOf(Error)
      expect((received[0] as { _tag: string })._tag).toBe("HttpError")
    } finally {
      server.script = () => json({ data: { n: 1 }, success: true })
    }
  })

  it("rejects a non-function interceptor with a TypeError", () => {
    const svc = createSvc(server.origin)
    expect(() => svc.addRequestInterceptor("x" as never)).toThrow(TypeError)
    expect(() => svc.addResponseInterceptor(null as never)).toThrow(TypeError)
    expect(() => createSvc(server.origin, { onError: 1 as never })).toThrow(/onError/)
  })
})
