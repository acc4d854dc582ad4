/**
 * On the Effect 4 line too, interrupting a request ends its exchange over every transport of the
 * Effect API: the server sees the connection go, rather than a request that runs on unseen until
 * the answer or the client's time limit.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { SvcClient, type SvcClientService, type SvcConfig } from "../../../src/Client/index.js"
import { closedPort, testServer } from "../../Client/server.js"

/** The facade's two Node transports: undici (the default) and `fetch` (`config.fetch`). */
const nodeTransports: ReadonlyArray<readonly [string, SvcConfig]> = [
  ["undici", {}],
  ["fetch", { fetch: (input, init) => globalThis.fetch(input, init) }]
]

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
          built(SvcClient.layerDefault(baseUrl, { ...transport, ...config }))
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

describe.each(clients)("Effect 4: interruption ends the exchange (%s)", (_name, clientOf) => {
  it.effect("Fiber.interrupt on a request in flight", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* clientOf(server.origin)
      const fiber = yield* Effect.forkChild(client.get("/hang"))
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.waitForAbandoned(1))
      expect(server.requests).toHaveLength(1)
    })
  )

  it.effect("the try's deadline ends the exchange of a request run uninterruptibly", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* clientOf(server.origin, { timeout: 300, retryAttempts: 0 })
      const fiber = yield* Effect.forkChild(
        Effect.uninterruptible(Effect.flip(client.get("/hang")))
      )
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* TestClock.adjust("300 millis")
      expect((yield* Fiber.join(fiber))._tag).toBe("TimeoutError")
      yield* Effect.promise(() => server.waitForAbandoned(1))
    })
  )

  it.effect("Effect.timeout around a request", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* clientOf(server.origin)
      const fiber = yield* Effect.forkChild(
        Effect.flip(client.get("/hang").pipe(Effect.timeout("1 second")))
      )
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* TestClock.adjust("1 second")
      expect((yield* Fiber.join(fiber))._tag).toBe("TimeoutError")
      yield* Effect.promise(() => server.waitForAbandoned(1))
    })
  )

  it.effect(
    "a long-lived fiber's settled requests leave nothing behind that its end could abort",
    () =>
      Effect.gen(function* () {
        const server = yield* testServer()
        const client = yield* clientOf(server.origin)
        const failing = yield* clientOf(yield* Effect.promise(closedPort), { retryAttempts: 0 })
        const settled = yield* Deferred.make<void>()
        const fiber = yield* Effect.forkChild(
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
