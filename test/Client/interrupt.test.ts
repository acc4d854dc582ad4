/**
 * Interrupting a request must end its exchange: the server sees the connection go, rather than a
 * request that runs on unseen until the answer or the client's time limit. On either Effect line.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { createSvc, SvcClient } from "../../src/v3/Client/index.js"
// what the two Effects spell differently (an Effect 4 run takes test/v4/Auth/lineKit.ts)
import {
  fork,
  HttpClient,
  HttpClientResponse,
  TestClock,
  timeoutFail,
  withClockAt
} from "../Auth/lineKit.js"
import { built, effectClients } from "./effectClients.js"
import { closedPort, testServer } from "./server.js"
import { nodeTransports } from "./transports.js"

describe.each(effectClients)("interruption ends the exchange (%s)", (_name, clientOf) => {
  it.effect("Fiber.interrupt on a request in flight", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => ({ hang: true }))
        const client = yield* clientOf(server.origin)
        const fiber = yield* fork(client.get("/hang"))
        yield* Effect.promise(() => server.waitForRequests(1))
        yield* Fiber.interrupt(fiber)
        yield* Effect.promise(() => server.waitForAbandoned(1))
        expect(server.requests).toHaveLength(1)
      })
    )
  )

  it.effect("the try's deadline ends the exchange of a request run uninterruptibly", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // as a bare HttpServer app runs its handlers
        const server = yield* testServer(() => ({ hang: true }))
        const client = yield* clientOf(server.origin, { timeout: 300, retryAttempts: 0 })
        const fiber = yield* fork(Effect.uninterruptible(Effect.flip(client.get("/hang"))))
        yield* Effect.promise(() => server.waitForRequests(1))
        yield* TestClock.adjust("300 millis")
        expect((yield* Fiber.join(fiber))._tag).toBe("TimeoutError")
        yield* Effect.promise(() => server.waitForAbandoned(1))
      })
    )
  )

  it.effect("the caller's own timeout around a request", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => ({ hang: true }))
        const client = yield* clientOf(server.origin)
        const fiber = yield* fork(
          Effect.flip(timeoutFail(client.get("/hang"), "1 second", () => "the caller's timeout"))
        )
        yield* Effect.promise(() => server.waitForRequests(1))
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(fiber)).toBe("the caller's timeout")
        yield* Effect.promise(() => server.waitForAbandoned(1))
      })
    )
  )

  it.effect(
    "a long-lived fiber's settled requests leave nothing behind that its end could abort",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* testServer()
          const client = yield* clientOf(server.origin)
          const failing = yield* clientOf(yield* Effect.promise(closedPort), { retryAttempts: 0 })
          const settled = yield* Deferred.make<void>()
          const fiber = yield* fork(
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
  )
})

describe.each(nodeTransports)(
  "the facade's AbortSignal ends the exchange (%s)",
  (_name, config) => {
    it.effect("abort() on a request in flight", () =>
      Effect.scoped(
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
    )
  }
)

describe("the HttpClient adapter and a deadline passed before a hop is sent", () => {
  it.effect("the hop is never sent, though the caller's fiber goes on", () =>
    Effect.scoped(
      Effect.gen(function* () {
        // a clock that jumps past the try's deadline while the first hop is answered, and whose
        // timers never fire: only the check before sending can find the deadline passed
        let now = 0
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
        const error = yield* withClockAt(Effect.flip(client.get("/moved")), () => now)
        expect(error).toMatchObject({
          _tag: "TimeoutError",
          message: "Request timed out after 1000 ms: GET http://api.test/moved"
        })
        // the caller goes on, as a long-lived fiber would: nothing runs the unsent hop
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        expect(sent).toEqual(["/moved"])
      })
    )
  )
})
