import { AsyncLocalStorage } from "node:async_hooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"
import { json, startServer, type TestServer } from "./server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() => json({ success: true, data: 1 }))
})
afterAll(() => server.close())

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe("the caller's async context (AsyncLocalStorage)", () => {
  it("is what the application's code sees in each of many concurrent requests", async () => {
    const caller = new AsyncLocalStorage<string>()
    const seen: Array<{ readonly where: string; readonly who: string; readonly store: unknown }> =
      []
    const who = (headers: Readonly<Record<string, string>>) => headers["x-who"] ?? "?"
    const svc = createSvc(server.origin, {
      getSessionId: async () => {
        await turn()
        return `session-${caller.getStore()}`
      }
    })
    svc.addRequestInterceptor(async (config) => {
      await turn()
      seen.push({ where: "request", who: who(config.headers), store: caller.getStore() })
      return config
    })
    svc.addResponseInterceptor(async (response, config) => {
      await turn()
      seen.push({ where: "response", who: who(config.headers), store: caller.getStore() })
      return response
    })
    const names = Array.from({ length: 24 }, (_, i) => `caller-${i}`)
    const responses = await Promise.all(
      names.map((name) => caller.run(name, () => svc.get("/x", { headers: { "x-who": name } })))
    )
    expect(responses.every((response) => response.success)).toBe(true)
    expect(seen).toHaveLength(names.length * 2)
    for (const entry of seen) expect(entry.store, entry.where).toBe(entry.who)
    const sessions = new Map(
      server.requests.map((r) => [r.headers["x-who"], r.headers["x-session-id"]])
    )
    for (const name of names) expect(sessions.get(name)).toBe(`session-${name}`)
  })
})
