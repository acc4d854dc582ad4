/**
 * The Effect API over an `effect/http` `HttpClient`, for `SvcClient.make` and `SvcClient.layer`.
 */
import * as Effect from "effect/Effect"
import { HttpClient } from "effect/http"
import type { SvcClientService, SvcConfig } from "../SvcClient.js"
import { makeState } from "./client.js"
import { fromHttpClient } from "./httpClientTransport.js"
import { effectFace, fromState, transportFor } from "./service.js"

/**
 * Validates at once (throws on bad input), then sends through the `HttpClient` in context — or
 * through `config.fetch` when one is given.
 */
export const make = (
  baseUrl: string,
  config?: SvcConfig
): Effect.Effect<SvcClientService, never, HttpClient.HttpClient> => {
  const state = makeState(baseUrl, config)
  return Effect.map(HttpClient.HttpClient, (client: HttpClient.HttpClient) =>
    fromState(
      state,
      transportFor(config, () => fromHttpClient(client)),
      effectFace
    )
  )
}
