/**
 * On the Effect 4 line too, a try's one deadline runs on the fiber's `Clock`, every redirect hop
 * included, over each Effect layer: `TestClock` drives it.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { SvcClient, type SvcClientService, type SvcConfig } from "../../../src/Client/index.js"
import { startServer } from "../../Client/server.js"

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

describe.each(layers)("Effect 4: one time limit on the fiber's Clock over %s", (_, layerOf) => {
  it.effect("a try's deadline covers every redirect hop (TestClock)", () =>
    Effect.gen(function* () {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startServer((request) =>
            request.path === "/moved"
              ? { status: 302, headers: { location: "/slow" } }
              : { hang: true }
          )
        ),
        (s) => Effect.promise(() => s.close())
      )
      const fiber = yield* onLayer(
        layerOf(server.origin, { retryAttempts: 0, sessionId: "s", timeout: 1_000 }),
        (client) => Effect.flip(client.get("/moved"))
      ).pipe(Effect.forkChild)
      yield* Effect.promise(() => server.waitForRequests(2))
      // the second hop waits; the try's deadline passes on the test clock alone
      yield* TestClock.adjust("999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("TimeoutError")
      expect(error.message).toBe(`Request timed out after 1000 ms: GET ${server.origin}/moved`)
    })
  )
})
