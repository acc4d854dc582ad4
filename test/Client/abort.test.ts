import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"
import { startServer, type TestServer } from "./server.js"
import { nodeTransports } from "./transports.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() => ({ hang: true }))
})
afterAll(() => server.close())

describe("AbortSignal", () => {
  it("an already aborted signal sends nothing", async () => {
    const before = server.requests.length
    const errors: Array<Error> = []
    const svc = createSvc(server.origin, { onError: (e) => errors.push(e) })
    const response = await svc.get("/x", { signal: AbortSignal.abort() })
    expect(response).toEqual({
      success: false,
      status: 0,
      error: "Request aborted",
      code: "ABORTED"
    })
    expect(server.requests.length).toBe(before)
    expect(errors[0]).toBeInstanceOf(Error)
  })

  it("aborting in flight ends the request at once and is not retried", async () => {
    const before = server.requests.length
    const controller = new AbortController()
    const svc = createSvc(server.origin)
    const pending = svc.get("/x", { signal: controller.signal })
    await server.waitForRequests(before + 1)
    controller.abort()
    const response = await pending
    expect(response).toMatchObject({ success: false, status: 0, code: "ABORTED" })
    expect(server.requests.length).toBe(before + 1)
  })

  it.each(nodeTransports)(
    "%s: aborting in the same tick as the call sends nothing and ends at once",
    async (name, config) => {
      // a path of its own: another test's request arriving late is not this one's
      const path = `/same-tick-${name}`
      const controller = new AbortController()
      const svc = createSvc(server.origin, { ...config, sessionId: "s" })
      const pending = svc.get(path, { signal: controller.signal })
      controller.abort()
      expect(await pending).toMatchObject({ success: false, status: 0, code: "ABORTED" })
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(server.requests.filter((request) => request.path === path)).toEqual([])
      // an abort after the request began, during a getSessionId lookup, ends it at once too
      const lookup = createSvc(server.origin, { ...config, getSessionId: async () => "s" })
      const again = new AbortController()
      const late = lookup.get("/x", { signal: again.signal })
      await Promise.resolve()
      again.abort()
      expect(await late).toMatchObject({ success: false, status: 0, code: "ABORTED" })
    }
  )
})
