import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/Client/index.js"
import { startServer, type TestServer } from "./server.js"

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
    await svc.get("/h")
    expect(last().headers["x-session-id"]).toBe("default")
    const plain = createSvc(server.origin, { sessionId: "from-config" })
    await plain.get("/h", { headers: { "x-SESSION-id": "per-request" } })
    expect(last().headers["x-session-id"]).toBe("per-request")
  })

  it("rejects bad header names and values with a TypeError", () => {
    const svc = createSvc(server.origin)
    expect(() => svc.setHeader("bad name", "x")).toThrow(TypeError)
    expect(() => svc.setHeader("X-Ok", 1 as unknown as string)).toThrow(/X-Ok/)
    expect(() => createSvc(server.origin, { headers: { "a b": "x" } })).toThrow(TypeError)
  })
})
