import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import {
  createSvc,
  SvcClient,
  type SvcClientService,
  type SvcConfig
} from "../../src/v3/Client/index.js"
import { closedPort, testServer } from "./server.js"
import { nodeTransports } from "./transports.js"

// interrupting a request must end its exchange: the server sees the connection go, rather than
// a request that runs on unseen until the answer or the client's time limit

/** The client a layer gives, built for the rest of the test's scope. */
const built = (layer: Layer.Layer<SvcClient>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, SvcClient))

/** The Effect API over each of its transports, made for the rest of the test's scope. */
const clients: ReadonlyArray<
  readonly [
    string,
    (baseUrl: string, config?: SvcConfig) => Effect.Effect<SvcClientService, never, Scope.Scope>
  ]
> = [
  ...nodeTransports.map(
    ([name, transport]) =>
      [
        `layerDefault, ${name}`,
        (baseUrl: string, config?: SvcConfig) =>
          Effect.provide(SvcClient, SvcClient.layerDefault(baseUrl, { ...transport, ...config }))
      ] as const
  ),
  [
    "HttpClient adapter over NodeHttpClient.layerUndici",
    (baseUrl, config) =>
      built(SvcClient.layer(baseUrl, config).pipe(Layer.provide(NodeHttpClient.layerUndici)))
  ],
  [
    "HttpClient adapter over FetchHttpClient.layer",
    (baseUrl, config) =>
      built(SvcClient.layer(baseUrl, config).pipe(Layer.provide(FetchHttpClient.layer)))
  ]
]

describe.each(clients)("interruption ends the exchange (%s)", (_name, clientOf) => {
  it.scoped("Fiber.interrupt on a request in flight", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* clientOf(server.origin)
      const fiber = yield* Effect.fork(client.get("/hang"))
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.waitForAbandoned(1))
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scoped("Fiber.interrupt on a request under Effect.daemonChildren", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* clientOf(server.origin)
      // what the request forks is a daemon here: its own end must still end the exchange
      const fiber = yield* Effect.fork(Effect.daemonChildren(client.get("/hang")))
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.waitForAbandoned(1))
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scoped("the try's deadline ends the exchange of a request run uninterruptibly", () =>
    Effect.gen(function* () {
      // as a bare HttpServer app runs its handlers
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* clientOf(server.origin, { timeout: 300, retryAttempts: 0 })
      const fiber = yield* Effect.fork(Effect.uninterruptible(Effect.flip(client.get("/hang"))))
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* TestClock.adjust("300 millis")
      expect((yield* Fiber.join(fiber))._tag).toBe("TimeoutError")
      yield* Effect.promise(() => server.waitForAbandoned(1))
    })
  )

  it.scoped("Effect.timeout around a request", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* clientOf(server.origin)
      const fiber = yield* Effect.fork(client.get("/hang").pipe(Effect.timeout("1 second")))
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* TestClock.adjust("1 second")
      const outcome = yield* Effect.flip(Fiber.join(fiber))
      expect(outcome._tag).toBe("TimeoutException")
      yield* Effect.promise(() => server.waitForAbandoned(1))
    })
  )

  it.scoped(
    "a long-lived fiber's settled requests leave nothing behind that its end could abort",
    () =>
      Effect.gen(function* () {
        const server = yield* testServer()
        const client = yield* clientOf(server.origin)
        const failing = yield* clientOf(yield* Effect.promise(closedPort), { retryAttempts: 0 })
        const settled = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(
          Effect.gen(function* () {
            for (let i = 0; i < 20; i++) yield* client.get("/ok")
            for (let i = 0; i < 5; i++) yield* Effect.flip(failing.get("/down"))
            yield* Deferred.succeed(settled, undefined)
            return yield* Effect.never
          })
        )
        yield* Deferred.await(settled)
        yield* Fiber.interrupt(fiber)
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
        expect(server.requests).toHaveLength(20)
        expect(server.abandoned()).toBe(0)
      })
  )
})

describe.each(nodeTransports)(
  "the facade's AbortSignal ends the exchange (%s)",
  (_name, config) => {
    it.scoped("abort() on a request in flight", () =>
      Effect.gen(function* () {
        const server = yield* testServer(() => ({ hang: true }))
        const svc = createSvc(server.origin, config)
        const controller = new AbortController()
        const pending = svc.get("/hang", { signal: controller.signal })
        yield* Effect.promise(() => server.waitForRequests(1))
        controller.abort()
        const response = yield* Effect.promise(() => pending)
        expect(response).toMatchObject({ success: false, code: "ABORTED" })
        yield* Effect.promise(() => server.waitForAbandoned(1))
      })
    )
  }
)

describe("the HttpClient adapter and a deadline passed before a hop is sent", () => {
  it.scoped("the hop is never sent, though the caller's fiber goes on", () =>
    Effect.gen(function* () {
      // a clock that jumps past the try's deadline while the first hop is answered, and whose
      // timers never fire: only the check before sending can find the deadline passed
      let now = 0
      const clock: Clock.Clock = {
        [Clock.ClockTypeId]: Clock.ClockTypeId,
        unsafeCurrentTimeMillis: () => now,
        currentTimeMillis: Effect.sync(() => now),
        unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
        currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
        sleep: () => Effect.never
      }
      const sent: Array<string> = []
      const http = HttpClient.make((request) =>
        Effect.sync(() => {
          const path = new URL(request.url).pathname
          sent.push(path)
          if (path !== "/moved") return HttpClientResponse.fromWeb(request, new Response("{}"))
          now += 2_000
          return HttpClientResponse.fromWeb(
            request,
            new Response(null, { status: 302, headers: { location: "/next" } })
          )
        })
      )
      const client = yield* built(
        SvcClient.layer("http://api.test", { retryAttempts: 0, timeout: 1_000 }).pipe(
          Layer.provide(Layer.succeed(HttpClient.HttpClient, http))
        )
      )
      const error = yield* Effect.flip(client.get("/moved")).pipe(Effect.withClock(clock))
      expect(error).toMatchObject({
        _tag: "TimeoutError",
        message: "Request timed out after 1000 ms: GET http://api.test/moved"
      })
      // the caller goes on, as a long-lived fiber would: nothing runs the unsent hop
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      expect(sent).toEqual(["/moved"])
    })
  )
})
