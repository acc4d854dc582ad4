import { getEventListeners } from "node:events"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/Client/index.js"
import { json, startServer, type TestServer } from "./server.js"
import { nodeTransports, withClient } from "./transports.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() => ({ hang: true }))
})
afterAll(() => server.close())

/** Runs `check` against a server of its own that answers every request with `status`. */
const againstFailing = async (status: number, check: (origin: string) => Promise<void>) => {
  const failing = await startServer(() => json({ error: "failed" }, status))
  try {
    await check(failing.origin)
  } finally {
    await failing.close()
  }
}

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

  it.each(nodeTransports)(
    "%s: requests sharing one signal put one listener on it, Node prints no warning, and an abort ends them all",
    async (name, config) => {
      const warnings: Array<string> = []
      const onWarning = (warning: Error) => warnings.push(warning.name)
      process.on("warning", onWarning)
      try {
        const path = `/shared-signal-${name}`
        const before = server.requests.length
        const controller = new AbortController()
        const signal = controller.signal
        const svc = createSvc(server.origin, config)
        const gets = Array.from({ length: 30 }, () => svc.get(path, { signal }))
        const streams = Array.from({ length: 5 }, () => svc.stream(path, { signal }))
        const effects = Array.from({ length: 5 }, () =>
          Effect.runPromise(
            withClient(server.origin, config, (client) =>
              Effect.match(client.get(path, { signal }), {
                onFailure: (error) => error._tag,
                onSuccess: () => "answered"
              })
            )
          )
        )
        await server.waitForRequests(before + 40)
        expect(getEventListeners(signal, "abort")).toHaveLength(1)
        controller.abort()
        for (const response of await Promise.all([...gets, ...streams])) {
          expect(response).toMatchObject({ success: false, status: 0, code: "ABORTED" })
        }
        expect(await Promise.all(effects)).toEqual(Array(5).fill("AbortedError"))
        expect(getEventListeners(signal, "abort")).toHaveLength(0)
        // a warning is emitted on the next tick
        await new Promise((resolve) => setImmediate(resolve))
        expect(warnings).toEqual([])
      } finally {
        process.off("warning", onWarning)
      }
    }
  )

  it("a request that ends leaves no listener on a signal that lives on", async () => {
    const controller = new AbortController()
    const signal = controller.signal
    const svc = createSvc(server.origin, { timeout: 30, retryAttempts: 0 })
    // the server never answers: each request ends on its timeout, the signal still unaborted
    const first = await Promise.all(
      Array.from({ length: 12 }, () => svc.get("/lives-on", { signal }))
    )
    expect(first.map((response) => response.code)).toEqual(Array(12).fill("TIMEOUT"))
    expect(getEventListeners(signal, "abort")).toHaveLength(0)
    // and the next ones still end on its abort
    const next = svc.get("/lives-on", { signal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(getEventListeners(signal, "abort")).toHaveLength(1)
    controller.abort()
    expect(await next).toMatchObject({ code: "ABORTED" })
  })

  it.each(nodeTransports)(
    "%s: an onError that aborts the signal (cancelling a batch) leaves the failure as it was, reported once",
    (_, config) =>
      againstFailing(500, async (origin) => {
        const controller = new AbortController()
        const reported: Array<string> = []
        const svc = createSvc(origin, {
          ...config,
          retryAttempts: 0,
          totalTimeout: 5000,
          onError: (error) => {
            reported.push(String((error as { _tag?: string })._tag))
            controller.abort()
          }
        })
        const response = await svc.get("/x", { signal: controller.signal })
        expect(response).toMatchObject({ success: false, status: 500, code: "HTTP_ERROR" })
        await new Promise((resolve) => setTimeout(resolve, 10))
        expect(reported).toEqual(["HttpError"])
        expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
      })
  )

  it("onError hears of an abort after controller.abort() has returned, as of any failure", async () => {
    const controller = new AbortController()
    const order: Array<string> = []
    const svc = createSvc(server.origin, { onError: () => order.push("onError") })
    const pending = svc.get("/x", { signal: controller.signal })
    await server.waitForRequests(server.requests.length)
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort()
    order.push("abort() returned")
    expect(await pending).toMatchObject({ code: "ABORTED" })
    expect(order).toEqual(["abort() returned", "onError"])
  })

  it("the Effect API ends on a signal that onRequest aborts at once", async () => {
    const controller = new AbortController()
    const outcome = await Effect.runPromise(
      withClient(
        server.origin,
        // a known session: nothing waits before onRequest, which runs as the request starts
        { sessionId: "s", onRequest: () => controller.abort(), totalTimeout: 20_000 },
        (client) =>
          Effect.match(client.get("/x", { signal: controller.signal }), {
            onFailure: (error) => error._tag,
            onSuccess: () => "answered"
          })
      )
    )
    // the server never answers: only the abort can end it before the total limit
    expect(outcome).toBe("AbortedError")
  })

  it.each(nodeTransports)(
    "%s: an onResponse that aborts the signal ends the call with ABORTED, reported once",
    (_, config) =>
      againstFailing(401, async (origin) => {
        const controller = new AbortController()
        const reported: Array<string> = []
        const svc = createSvc(origin, {
          ...config,
          retryAttempts: 0,
          onResponse: () => controller.abort(),
          onError: (error) => reported.push(String((error as { _tag?: string })._tag))
        })
        const response = await svc.get("/x", { signal: controller.signal })
        expect(response).toMatchObject({ success: false, code: "ABORTED" })
        await new Promise((resolve) => setTimeout(resolve, 10))
        expect(reported).toEqual(["AbortedError"])
      })
  )
})
