import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import { createSvc, SvcClient } from "../../src/v3/Client/index.js"
import { closedPort, testServer } from "./server.js"
import { nodeTransports } from "./transports.js"

// interrupting a request must end its exchange: the server sees the connection go, rather than
// a request that runs on unseen until the answer or the client's time limit

describe.each(nodeTransports)("interruption ends the exchange (%s)", (_name, config) => {
  it.scoped("Fiber.interrupt on a request in flight", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* Effect.provide(SvcClient, SvcClient.layerDefault(server.origin, config))
      const fiber = yield* Effect.fork(client.get("/hang"))
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.waitForAbandoned(1))
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scoped("Effect.timeout around a request", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* Effect.provide(SvcClient, SvcClient.layerDefault(server.origin, config))
      const fiber = yield* Effect.fork(client.get("/hang").pipe(Effect.timeout("1 second")))
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* TestClock.adjust("1 second")
      const outcome = yield* Effect.flip(Fiber.join(fiber))
      expect(outcome._tag).toBe("TimeoutException")
      yield* Effect.promise(() => server.waitForAbandoned(1))
    })
  )

  it.scoped("the facade's AbortSignal", () =>
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

  it.scoped(
    "a long-lived fiber's settled requests leave nothing behind that its end could abort",
    () =>
      Effect.gen(function* () {
        const server = yield* testServer()
        const client = yield* Effect.provide(
          SvcClient,
          SvcClient.layerDefault(server.origin, config)
        )
        const failing = yield* Effect.provide(
          SvcClient,
          SvcClient.layerDefault(yield* Effect.promise(closedPort), { ...config, retryAttempts: 0 })
        )
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
