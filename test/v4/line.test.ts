/**
 * These tests run on Effect 4: `effect` is 4.x here, and the client under test is the Effect 4
 * binding, whose service key is an Effect 4 `Context.Service`.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { createSvc, SvcClient } from "../../src/Client/index.js"

describe("the Effect 4 line", () => {
  it("runs on effect 4", () => {
    // Effect 4's callback took the place of Effect 3's async
    expect(typeof Effect.callback).toBe("function")
    expect((Effect as Record<string, unknown>).async).toBeUndefined()
  })

  it("SvcClient is both an Effect 4 service key and the Promise facade's class", async () => {
    const context = Context.make(SvcClient, {} as never)
    expect(Context.getOption(context, SvcClient)._tag).toBe("Some")
    const svc = createSvc("http://127.0.0.1:1", { retryAttempts: 0, timeout: 1_000 })
    expect(svc).toBeInstanceOf(SvcClient)
    expect(new SvcClient("http://127.0.0.1:1")).toBeInstanceOf(SvcClient)
    const refused = await svc.get("/x")
    expect(refused).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
  })
})
