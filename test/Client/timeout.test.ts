import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import {
  createSvc,
  SvcClient,
  type SvcClientService,
  type SvcConfig
} from "../../src/v3/Client/index.js"
import { awaitSleeps } from "./helpers.js"
import { json, startServer } from "./server.js"
import { withClient } from "./transports.js"

const hangingServer = (answerAfter = Number.POSITIVE_INFINITY) =>
  Effect.acquireRelease(
    Effect.promise(() => {
      let calls = 0
      return startServer(() =>
        calls++ < answerAfter ? { hang: true } : json({ data: "late", success: true })
      )
    }),
    (server) => Effect.promise(() => server.close())
  )

describe("timeout (Effect API, TestClock)", () => {
  it.scoped("defaults to 30 s and fails with TimeoutError", () =>
    Effect.gen(function* () {
      const server = yield* hangingServer()
      // a fixed session: no lookup, whose own time limit would be a second TestClock sleep
      const fiber = yield* withClient(
        server.origin,
        { retryAttempts: 0, sessionId: "s" },
        (client) => Effect.flip(client.get("/slow"))
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([30_000])
      yield* TestClock.adjust("30 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("TimeoutError")
      expect(error.message).toBe(`Request timed out after 30000 ms: GET ${server.origin}/slow`)
    })
  )

  it.scoped("a per-request timeout overrides the client's, as ms or Duration", () =>
    Effect.gen(function* () {
      const server = yield* hangingServer()
      const fiber = yield* withClient(
        server.origin,
        { retryAttempts: 0, timeout: "10 seconds", sessionId: "s" },
        (client) => Effect.flip(client.get("/slow", { timeout: 1_500 }))
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([1_500])
      yield* TestClock.adjust("1500 millis")
      expect((yield* Fiber.join(fiber))._tag).toBe("TimeoutError")
    })
  )

  it.scoped("timeouts are retried, each try getting its own timeout", () =>
    Effect.gen(function* () {
      const server = yield* hangingServer(1)
      const fiber = yield* withClient(server.origin, { timeout: 1_000, sessionId: "s" }, (client) =>
        client.get("/slow")
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([1_000])
      yield* TestClock.adjust("1 second")
      const [backoff] = yield* awaitSleeps(1)
      yield* TestClock.adjust(`${backoff! - 1_000} millis`)
      const response = yield* Fiber.join(fiber)
      expect(response.data).toBe("late")
      expect(server.requests.length).toBe(2)
    })
  )

  it.scoped("timeout 0 disables it", () =>
    Effect.gen(function* () {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startServer(() => ({ ...json({ data: 1, success: true }), delayMs: 50 }))
        ),
        (s) => Effect.promise(() => s.close())
      )
      const response = yield* withClient(server.origin, { timeout: 0 }, (client) =>
        client.get("/x")
      )
      expect(response.data).toBe(1)
    })
  )

  it("rejects a negative timeout with a RangeError", () => {
    expect(() => createSvc("http://127.0.0.1:1", { timeout: -1 })).toThrow(RangeError)
    expect(() => createSvc("http://127.0.0.1:1", { timeout: Number.NaN })).toThrow(/timeout/)
  })
})

describe("timeout (facade)", () => {
  it("resolves to TIMEOUT with status 0 when the server is slow", async () => {
    const server = await startServer(() => ({ hang: true }))
    try {
      const svc = createSvc(server.origin, { timeout: 50, retryAttempts: 0 })
      const response = await svc.get("/slow")
      expect(response).toMatchObject({ success: false, status: 0, code: "TIMEOUT" })
      expect(response.error).toMatch(/timed out/)
    } finally {
      await server.close()
    }
  })

  it("aborts the timed-out request: the server sees its connection close", async () => {
    let closed!: () => void
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve
    })
    // never answers; 300 ms lets the request reach it on a loaded machine
    const server = Http.createServer((req) => req.socket.once("close", closed))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const svc = createSvc(`http://127.0.0.1:${port}`, { timeout: 300, retryAttempts: 0 })
      expect(await svc.get("/slow")).toMatchObject({ status: 0, code: "TIMEOUT" })
      await connectionClosed
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("gives every try its own time limit", async () => {
    const server = await startServer(() => ({ hang: true }))
    try {
      // long enough for each try to reach the server on a loaded machine
      const svc = createSvc(server.origin, { timeout: 300, retryAttempts: 2 })
      const response = await svc.get("/slow")
      expect(response).toMatchObject({ success: false, status: 0, code: "TIMEOUT" })
      expect(response.error).toBe(`Request timed out after 300 ms: GET ${server.origin}/slow`)
      expect(server.requests).toHaveLength(3)
    } finally {
      await server.close()
    }
  })

  it("a bad per-request timeout resolves to a failure naming it", async () => {
    const svc = createSvc("http://127.0.0.1:1", { retryAttempts: 0 })
    const response = await svc.get("/x", { timeout: -5 })
    expect(response.success).toBe(false)
    expect(response.error).toMatch(/options\.timeout/)
  })
})

/** The Effect API over each of its layers: the facade's transport, and the HttpClient adapter. */
const layers: ReadonlyArray<
  readonly [string, (baseUrl: string, config: SvcConfig) => Layer.Layer<SvcClient>]
> = [
  ["layerDefault", (baseUrl, config) => SvcClient.layerDefault(baseUrl, config)],
  [
    "layer(NodeHttpClient.layerUndici)",
    (baseUrl, config) =>
      SvcClient.layer(baseUrl, config).pipe(Layer.provide(NodeHttpClient.layerUndici))
  ],
  [
    "layer(FetchHttpClient.layer)",
    (baseUrl, config) => SvcClient.layer(baseUrl, config).pipe(Layer.provide(FetchHttpClient.layer))
  ]
]

const onLayer = <A, E>(
  layer: Layer.Layer<SvcClient>,
  f: (client: SvcClientService) => Effect.Effect<A, E>
) => Effect.flatMap(SvcClient, f).pipe(Effect.provide(layer))

describe.each(layers)("one time limit on Effect's Clock over %s (TestClock)", (_, layerOf) => {
  it.scoped("a try's deadline covers every redirect hop: no new deadline per hop", () =>
    Effect.gen(function* () {
      // the first hop redirects when the test says so, the second never answers
      let release!: () => void
      const released = new Promise<void>((resolve) => {
        release = resolve
      })
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startServer(async (request) => {
            if (request.path !== "/moved") return { hang: true }
            await released
            return { status: 302, headers: { location: "/slow" } }
          })
        ),
        (s) => Effect.promise(() => s.close())
      )
      const fiber = yield* onLayer(
        layerOf(server.origin, { retryAttempts: 0, sessionId: "s", timeout: 1_000 }),
        (client) => Effect.flip(client.get("/moved"))
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([1_000])
      yield* TestClock.adjust("600 millis")
      release()
      yield* Effect.promise(() => server.waitForRequests(2))
      // the second hop, sent at 600 ms, still ends at the try's deadline: 1 000 ms, not 1 600
      expect(new Set(yield* awaitSleeps(1))).toEqual(new Set([1_000]))
      yield* TestClock.adjust("400 millis")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("TimeoutError")
      expect(error.message).toBe(`Request timed out after 1000 ms: GET ${server.origin}/moved`)
    })
  )

  it.scoped("totalTimeout bounds the whole call, retries and waits included", () =>
    Effect.gen(function* () {
      const server = yield* hangingServer()
      const fiber = yield* onLayer(
        layerOf(server.origin, {
          sessionId: "s",
          timeout: 1_000,
          totalTimeout: 1_200,
          retryAttempts: 5
        }),
        (client) => Effect.flip(client.get("/slow"))
      ).pipe(Effect.fork)
      expect([...(yield* awaitSleeps(2))].sort((a, b) => a - b)).toEqual([1_000, 1_200])
      yield* TestClock.adjust("1 second") // the first try times out; a backoff wait (≥ 240 ms) begins
      yield* awaitSleeps(2)
      yield* TestClock.adjust("200 millis") // the whole call's budget is spent during the wait
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "TimeoutError", total: true, timeoutMillis: 1_200 })
      expect(error.message).toBe(
        `Request timed out after 1200 ms (totalTimeout): GET ${server.origin}/slow`
      )
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scoped("a per-request totalTimeout overrides the client's", () =>
    Effect.gen(function* () {
      const server = yield* hangingServer()
      const fiber = yield* onLayer(
        layerOf(server.origin, { sessionId: "s", timeout: 0, totalTimeout: 9_000 }),
        (client) => Effect.flip(client.get("/slow", { totalTimeout: "2 seconds" }))
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([2_000])
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "TimeoutError", total: true })
    })
  )
})

describe("per-request retryAttempts", () => {
  it.scoped("retryAttempts: 0 turns retry off for one call; a number sets its tries", () =>
    Effect.gen(function* () {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => startServer(() => json({ error: "busy" }, 503))),
        (s) => Effect.promise(() => s.close())
      )
      const fiber = yield* onLayer(
        SvcClient.layerDefault(server.origin, { sessionId: "s", timeout: 0, retryAttempts: 3 }),
        (client) =>
          Effect.gen(function* () {
            const off = yield* Effect.flip(client.get("/x", { retryAttempts: 0 }))
            expect(off).toMatchObject({ _tag: "HttpError", status: 503 })
            expect(server.requests).toHaveLength(1)
            return yield* Effect.flip(client.get("/x", { retryAttempts: 1 }))
          })
      ).pipe(Effect.fork)
      const [wait = 0] = yield* awaitSleeps(1)
      yield* TestClock.adjust(`${wait} millis`)
      expect(yield* Fiber.join(fiber)).toMatchObject({ _tag: "HttpError", status: 503 })
      expect(server.requests).toHaveLength(3)
    })
  )

  it("a bad per-request retryAttempts or totalTimeout is INVALID_REQUEST naming it", async () => {
    const svc = createSvc("http://127.0.0.1:1")
    expect(await svc.get("/x", { retryAttempts: -1 })).toMatchObject({
      code: "INVALID_REQUEST",
      error: "options.retryAttempts must be an integer ≥ 0, got -1"
    })
    expect(await svc.get("/x", { totalTimeout: Number.NaN })).toMatchObject({
      code: "INVALID_REQUEST",
      error: expect.stringMatching(/^options\.totalTimeout must be between 0/)
    })
    expect(() => createSvc("http://127.0.0.1:1", { totalTimeout: -1 })).toThrow(
      /^totalTimeout must be between 0/
    )
  })
})
