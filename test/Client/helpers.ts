/**
 * Test helpers: wait for the client to reach a TestClock sleep, provide the Effect API.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { SvcClient, type SvcClientService, type SvcConfig } from "../../src/v3/Client/index.js"

const nextTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** The pending TestClock deadlines once there are at least `count` (real I/O runs meanwhile). */
export const awaitSleeps = (count = 1): Effect.Effect<ReadonlyArray<number>> =>
  Effect.gen(function* () {
    for (;;) {
      const sleeps = yield* TestClock.sleeps()
      if (Chunk.size(sleeps) >= count) return Chunk.toReadonlyArray(sleeps)
      yield* nextTurn
    }
  })

/** Runs `f` with the Effect API of a client over undici. */
export const withClient = <A, E, R>(
  baseUrl: string,
  config: SvcConfig | undefined,
  f: (client: SvcClientService) => Effect.Effect<A, E, R>
) =>
  Effect.flatMap(SvcClient, f).pipe(
    Effect.provide(SvcClient.layer(baseUrl, config)),
    Effect.provide(NodeHttpClient.layerUndici)
  )

/** Resolves after every pending I/O callback of this turn. */
export const flush = nextTurn

/** The facade's two Node transports: undici (the default) and `fetch` (`config.fetch`). */
export const nodeTransports: ReadonlyArray<readonly [string, SvcConfig]> = [
  ["undici", {}],
  ["fetch", { fetch: (input, init) => globalThis.fetch(input, init) }]
]
