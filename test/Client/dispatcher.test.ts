/**
 * On Node the facade sends through undici's global dispatcher, so `setGlobalDispatcher` applies:
 * undici's `MockAgent` here, a proxy agent in an app.
 */

import { type Dispatcher, getGlobalDispatcher, MockAgent, setGlobalDispatcher } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"

let original: Dispatcher
const agent = new MockAgent()
beforeAll(() => {
  original = getGlobalDispatcher()
  agent.disableNetConnect()
  setGlobalDispatcher(agent)
})
afterAll(async () => {
  setGlobalDispatcher(original)
  await agent.close()
})

describe("undici's global dispatcher", () => {
  it("a MockAgent set with setGlobalDispatcher answers the facade's requests", async () => {
    const pool = agent.get("http://api.example")
    pool
      .intercept({ path: "/users/1", method: "GET", headers: { "x-session-id": "s-mock" } })
      .reply(
        200,
        { success: true, data: { id: 1 } },
        { headers: { "content-type": "application/json" } }
      )
    const svc = createSvc("http://api.example", { sessionId: "s-mock", retryAttempts: 0 })
    expect(await svc.get("/users/1")).toMatchObject({ success: true, status: 200, data: { id: 1 } })
  })

  it("a request the agent does not know fails as a network error, never reaching the network", async () => {
    const svc = createSvc("http://api.example", { retryAttempts: 0 })
    expect(await svc.get("/unknown")).toMatchObject({ success: false, code: "NETWORK_ERROR" })
  })
})
