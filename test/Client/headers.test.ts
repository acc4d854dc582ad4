import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"
import { startServer, type TestServer } from "./server.js"
import { nodeTransports } from "./transports.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const last = () => server.requests[server.requests.length - 1]!

describe("headers", () => {
  it("sends default headers, per-request headers winning whatever their case", async () => {
    const svc = createSvc(server.origin, { headers: { "X-App": "one", Accept: "text/plain" } })
    await svc.get("/h", { headers: { "x-app": "two", "X-Extra": "3" } })
    expect(last().headers["x-app"]).toBe("two")
    expect(last().headers["x-extra"]).toBe("3")
    expect(last().headers.accept).toBe("text/plain")
  })

  it("setHeader and removeHeader change the defaults of later requests", async () => {
    const svc = createSvc(server.origin, { headers: { "X-Gone": "1" } })
    svc.setHeader("Authorization", "Bearer t")
    svc.removeHeader("x-gone")
    await svc.get("/h")
    expect(last().headers.authorization).toBe("Bearer t")
    expect(last().headers["x-gone"]).toBeUndefined()
    expect(svc.getConfig().headers).toEqual({ authorization: "Bearer t" })
  })

  it("the session header comes after defaults, and a per-request header of that name wins", async () => {
    const svc = createSvc(server.origin, {
      sessionId: "from-config",
      headers: { "X-Session-Id": "default" }
    })
    // SPEC 4.3.2: defaults, then per-request headers, then the session: it replaces the default
    await svc.get("/h")
    expect(last().headers["x-session-id"]).toBe("from-config")
    svc.setSessionId("set-later")
    await svc.get("/h")
    expect(last().headers["x-session-id"]).toBe("set-later")
    // without a session the default goes as it is
    await createSvc(server.origin, { headers: { "X-Session-Id": "default" } }).get("/h")
    expect(last().headers["x-session-id"]).toBe("default")
    // a per-request header whose value is absent (undefined) is no header: the session goes
    await svc.get("/h", { headers: { "X-Session-Id": undefined } })
    expect(last().headers["x-session-id"]).toBe("set-later")
    const plain = createSvc(server.origin, { sessionId: "from-config" })
    await plain.get("/h", { headers: { "x-SESSION-id": "per-request" } })
    expect(last().headers["x-session-id"]).toBe("per-request")
  })

  it.each(nodeTransports)(
    "a Host header is left out: the request goes to the URL's host, whose origin rules were checked (%s)",
    async (_name, config) => {
      const svc = createSvc(server.origin, { ...config, sessionId: "S" })
      await svc.get("/h", { headers: { Host: "other.example" } })
      expect(last().headers.host).toBe(new URL(server.origin).host)
      expect(last().headers["x-session-id"]).toBe("S")
    }
  )

  it.each(
    nodeTransports.flatMap(([name, config]) =>
      [
        { Upgrade: "websocket" },
        { "Transfer-Encoding": "chunked" },
        { "Keep-Alive": "timeout=5" },
        { Expect: "100-continue" }
      ].map((headers) => [name, headers, config] as const)
    )
  )(
    "a header Node cannot send fails once, never retried (%s, %o)",
    async (_name, headers, config) => {
      const before = server.requests.length
      const errors: Array<Error> = []
      // the default retries (2)
      const svc = createSvc(server.origin, { ...config, onError: (error) => errors.push(error) })
      const response = await svc.get("/h", { headers })
      expect(response).toMatchObject({ success: false, code: "NETWORK_ERROR" })
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatchObject({ _tag: "NetworkError", permanent: true })
      expect(server.requests.length).toBe(before)
    }
  )

  it("rejects bad header names and values with a TypeError", () => {
    const svc = createSvc(server.origin)
    expect(() => svc.setHeader("bad name", "x")).toThrow(TypeError)
    expect(() => svc.setHeader("X-Ok", 1 as unknown as string)).toThrow(/X-Ok/)
    expect(() => createSvc(server.origin, { headers: { "a b": "x" } })).toThrow(TypeError)
  })

  it("refuses __proto__ as a header name, whatever its case: no record holds it, so it went unsent", async () => {
    const refused = 'header name must be an HTTP token other than __proto__, got "__proto__"'
    const own = (value: string) => JSON.parse(`{"__proto__":"${value}"}`) as Record<string, string>
    const svc = createSvc(server.origin)
    expect(() => svc.setHeader("__proto__", "x")).toThrow(new TypeError(refused))
    expect(() => svc.setHeader("__PROTO__", "x")).toThrow(/other than __proto__, got "__PROTO__"/)
    expect(() => createSvc(server.origin, { headers: own("x") })).toThrow(new TypeError(refused))
    // the session's header: the session went unsent, and nothing said so
    expect(() => createSvc(server.origin, { sessionId: "s1", sessionHeader: "__proto__" })).toThrow(
      new TypeError(refused)
    )
    const before = server.requests.length
    expect(await svc.get("/h", { headers: own("x") })).toMatchObject({
      success: false,
      code: "INVALID_REQUEST",
      error: `options.headers are invalid: ${refused}`
    })
    expect(server.requests.length).toBe(before)
    // a name that only holds the word is a header like any other
    await svc.get("/h", { headers: { "x-__proto__": "1" } })
    expect(last().headers["x-__proto__"]).toBe("1")
  })

  it("rejects header values HTTP cannot carry, and keeps those it can (tab, U+0080 to U+00FF)", async () => {
    const svc = createSvc(server.origin)
    const unsendable =
      /must not contain control characters \(tab aside\) or characters past U\+00FF$/
    for (const value of ["日本", "bell\u0007", "del\u007f", "nul\u0000", "cr\r"]) {
      expect(() => svc.setHeader("X-A", value)).toThrow(unsendable)
      expect(() => createSvc(server.origin, { headers: { "X-A": value } })).toThrow(unsendable)
    }
    svc.setHeader("X-Name", "Jos\u00e9\tM")
    await svc.get("/h")
    // sent as its one byte each, which Node reads back as latin1
    expect(last().headers["x-name"]).toBe("Jos\u00e9\tM")
  })
})

describe("response headers a server names after Object.prototype's keys", () => {
  const rawHeaders = [
    ["content-type", "application/json"],
    ["constructor", "c1"],
    ["__proto__", "p1"],
    ["X-Twice", "1"],
    ["x-twice", "2"],
    ["Set-Cookie", "a=1"],
    ["set-cookie", "b=2"]
  ]
  let raw: Http.Server
  let origin: string
  beforeAll(async () => {
    raw = Http.createServer((request, response) => {
      response.writeHead(request.url === "/fail" ? 503 : 200, rawHeaders.flat())
      response.end(JSON.stringify({ success: request.url !== "/fail", data: 1 }))
    })
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => raw.close(() => resolve())))

  // a computed key: `__proto__: "p1"` in a literal would set no property at all
  const expected: Record<string, string> = {
    constructor: "c1",
    ["__proto__"]: "p1",
    "x-twice": "1, 2",
    "set-cookie": "a=1\nb=2"
  }

  it.each(nodeTransports)("are kept as sent, as own properties (%s)", async (_name, config) => {
    const svc = createSvc(origin, { ...config, retryAttempts: 0 })
    for (const path of ["/ok", "/fail"]) {
      const response = await svc.get(path)
      const headers = response.headers!
      expect(Object.getPrototypeOf(headers)).toBe(Object.prototype)
      for (const [name, value] of Object.entries(expected)) {
        expect(Object.hasOwn(headers, name), name).toBe(true)
        expect(headers[name], name).toBe(value)
      }
      expect(Object.keys(headers)).toEqual(expect.arrayContaining(Object.keys(expected)))
    }
    expect(({} as Record<string, unknown>).p1).toBeUndefined()
  })
})
