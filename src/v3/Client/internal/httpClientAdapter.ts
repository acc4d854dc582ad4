/**
 * The `HttpClient` adapter on Node, Bun and Deno, loaded by the first `SvcClient.layer` that needs
 * it: importing svc-sdk does not load `@effect/platform`.
 */
import * as Effect from "effect/Effect"
import type { fromHttpClient } from "./httpClientTransport.js"

export const loadAdapter: Effect.Effect<typeof fromHttpClient> = Effect.promise(async () => {
  const adapter = await import("./httpClientTransport.js")
  return adapter.fromHttpClient
})
