/**
 * Test helpers for either Effect line: the facade's Node transports, the Effect API over undici.
 * What they import is the same on both lines (an Effect 4 run resolves it to Effect 4).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import { SvcClient, type SvcClientService, type SvcConfig } from "../../src/v3/Client/index.js"

/** Resolves after every pending I/O callback of this turn. */
export const flush = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

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

/** The facade's two Node transports: undici (the default) and `fetch` (`config.fetch`). */
export const nodeTransports: ReadonlyArray<readonly [string, SvcConfig]> = [
  ["undici", {}],
  ["fetch", { fetch: (input, init) => globalThis.fetch(input, init) }]
]
