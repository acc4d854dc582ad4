import * as Net from "node:net"
import { afterAll, assert, beforeAll, describe, expect, it } from "vitest"
import {
  type ApiResponse,
  createSvc,
  gte,
  type RequestOptions,
  SvcClient,
  type SvcConfig
} from "../../src/v3/index.js"
import { closedPort, json, startServer, type TestServer } from "./server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() =>
    json({ data: [{ id: 1 }], meta: { page: 2, total: 3 }, success: true })
  )
})
afterAll(() => server.close())

const isFailure = (response: ApiResponse<unknown>) =>
  response.success === false && typeof response.error === "string" && response.error.length > 0

describe("the facade never throws or rejects", () => {
  it("server down (closed port) → NETWORK_ERROR, status 0", async () => {
    const origin = await closedPort()
    const errors: Array<Error> = []
    const response = await createSvc(origin, {
      retryAttempts: 0,
      onError: (e) => errors.push(e)
    }).get("/x")
    expect(response).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
    expect(isFailure(response)).toBe(true)
    expect(errors[0]).toBeInstanceOf(Error)
  })

  it("connection dropped → NETWORK_ERROR", async () => {
    const dropping = await startServer(() => ({ drop: true }))
    try {
      const response = await createSvc(dropping.origin, { retryAttempts: 1 }).get("/x")
      expect(response).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
      expect(dropping.requests.length).toBe(2)
    } finally {
      await dropping.close()
    }
  })

  it("garbage that is not HTTP → NETWORK_ERROR", async () => {
    const garbage = Net.createServer((socket) => {
      socket.on("data", () => socket.end("definitely not http\r\n\r\n"))
    })
    await new Promise<void>((resolve) => garbage.listen(0, "127.0.0.1", resolve))
    const { port } = garbage.address() as Net.AddressInfo
    try {
      const response = await createSvc(`http://127.0.0.1:${port}`, { retryAttempts: 0 }).get("/x")
      expect(response).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
    } finally {
      await new Promise((resolve) => garbage.close(resolve))
    }
  })

  it("bad JSON on an error status → HTTP_ERROR with the status", async () => {
    const bad = await startServer(() => ({
      status: 500,
      body: "{oops",
      headers: { "content-type": "application/json" }
    }))
    try {
      const response = await createSvc(bad.origin, { retryAttempts: 0 }).get("/x")
      expect(response).toMatchObject({
        success: false,
        status: 500,
        code: "HTTP_ERROR",
        error: "HTTP 500 Internal Server Error"
      })
    } finally {
      await bad.close()
    }
  })

  it("a throwing interceptor and a throwing onError still resolve", async () => {
    const svc = createSvc(server.origin, {
      onError: () => {
        throw new Error("onError broke")
      }
    })
    svc.addRequestInterceptor(() => {
      throw "not even an Error"
    })
    const response = await svc.get("/x")
    expect(response).toMatchObject({ success: false, status: 0, code: "INTERCEPTOR_ERROR" })
    expect(response.error).toContain("not even an Error")
  })

  it("bad arguments to a request resolve to a failure", async () => {
    const svc = createSvc(server.origin)
    const response = await svc.get(undefined as unknown as string, { params: 5 as never })
    expect(response).toMatchObject({
      success: false,
      status: 0,
      error: "endpoint must be a string, got undefined"
    })
  })
})

describe("facade methods", () => {
  it("new SvcClient and createSvc give the same facade", async () => {
    const a = new SvcClient(server.origin)
    const b = createSvc(server.origin)
    expect(b).toBeInstanceOf(SvcClient)
    // the same answer, but for the Date header, which may tick between the two
    const undated = ({ headers, ...rest }: ApiResponse) => ({
      ...rest,
      headers: { ...headers, date: "" }
    })
    expect(undated(await a.get("/x"))).toEqual(undated(await b.get("/x")))
  })

  it("get lifts the envelope into an ApiResponse", async () => {
    expect(await createSvc(server.origin).get("/users")).toEqual({
      success: true,
      status: 200,
      data: [{ id: 1 }],
      meta: { page: 2, total: 3 },
      headers: expect.objectContaining({ "content-type": "application/json" })
    })
  })

  it("query builds the URL and runs through the client", async () => {
    const svc = createSvc(`${server.origin}/api`, { sessionId: "q-session" })
    const response = await svc
      .query<Array<{ id: number }>>("/users")
      .where("age", gte(18))
      .page(2)
      .get()
    assert(response.success)
    expect(response.data[0]?.id).toBe(1)
    const sent = server.requests[server.requests.length - 1]!
    expect(sent.path).toBe("/api/users")
    expect(sent.query.get("age[gte]")).toBe("18")
    expect(sent.query.get("page")).toBe("2")
    expect(sent.headers["x-session-id"]).toBe("q-session")
  })

  it("query post/delete carry method and body", async () => {
    const svc = createSvc(server.origin)
    await svc.query("/items").post({ a: 1 })
    expect(server.requests[server.requests.length - 1]).toMatchObject({
      method: "POST",
      body: '{"a":1}'
    })
    await svc.query("/items").where("id", 3).delete()
    expect(server.requests[server.requests.length - 1]).toMatchObject({
      method: "DELETE",
      path: "/items"
    })
  })

  it("takes an option given as undefined for an absent one, in the config and per request", async () => {
    // the first two requests fail with 503: only the default 2 retries reach the third
    const flaky = await startServer((_, index) =>
      index >= 2 ? json({ data: "ok", success: true }) : json({ error: "busy" }, 503)
    )
    try {
      const absent = {
        sessionId: undefined,
        getSessionId: undefined,
        includeSession: undefined,
        sessionHeader: undefined,
        storage: undefined,
        headers: undefined,
        retryAttempts: undefined,
        timeout: undefined,
        totalTimeout: undefined,
        retrySchedule: undefined,
        onRequest: undefined,
        onResponse: undefined,
        onError: undefined,
        onDownloadProgress: undefined,
        onUploadProgress: undefined,
        fetch: undefined,
        responseType: undefined,
        maxResponseBytes: undefined,
        redirect: undefined,
        idleTimeout: undefined,
        tracerPropagation: undefined,
        refreshSession: undefined
      } satisfies Required<SvcConfig<"promise">>
      const perRequest = {
        params: undefined,
        headers: undefined,
        timeout: undefined,
        totalTimeout: undefined,
        idleTimeout: undefined,
        retryAttempts: undefined,
        includeSession: undefined,
        signal: undefined,
        schema: undefined,
        retrySchedule: undefined,
        responseType: undefined,
        redirect: undefined,
        onDownloadProgress: undefined,
        onUploadProgress: undefined
      } satisfies Required<RequestOptions>
      const svc = createSvc(flaky.origin, absent)
      const response = await svc.get("/flaky", perRequest)
      expect(response).toMatchObject({ success: true, status: 200, data: "ok" })
      expect(flaky.requests).toHaveLength(3)
      expect(flaky.requests[0]!.headers["x-session-id"]).toBeUndefined()
      const built = await svc.query("/built").get<string>()
      assert(built.success)
      expect(built.data.toUpperCase()).toBe("OK")
      const withSession = createSvc(flaky.origin, { ...absent, sessionId: "s-1" })
      await withSession.get("/session", { ...perRequest, retryAttempts: 0 })
      expect(flaky.requests.map((request) => request.path)).toEqual([
        "/flaky",
        "/flaky",
        "/flaky",
        "/built",
        "/session"
      ])
      expect(flaky.requests[4]!.headers["x-session-id"]).toBe("s-1")
    } finally {
      await flaky.close()
    }
  })

  it("getBaseUrl and getConfig", () => {
    const onError = () => undefined
    const svc = createSvc(`${server.origin}/api`, { timeout: 5, headers: { "X-A": "1" }, onError })
    expect(svc.getBaseUrl()).toBe(`${server.origin}/api`)
    expect(svc.getConfig()).toMatchObject({ timeout: 5, headers: { "x-a": "1" }, onError })
  })
})
