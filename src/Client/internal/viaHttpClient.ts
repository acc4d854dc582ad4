/**
 * The Effect API over an `effect/http` `HttpClient`, for `SvcClient.make` and `SvcClient.layer`.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { HttpClient } from "effect/http"
import { loadAdapter } from "#onDemand"
import type { SvcClientService, SvcConfig } from "../SvcClient.js"
import { makeState } from "./client.js"
import { effectFace, fromState, transportFor } from "./service.js"

/**
 * `effect/http`'s `HttpClient` service, by its key: the same service, without loading `effect/http`
 * before a layer needs it (a facade bundles none of it).
 */
const HttpClientService = Context.Service<HttpClient.HttpClient>("effect/HttpClient")

/**
 * Validates at once (throws on bad input), then sends through the `HttpClient` in context — or
 * through `config.fetch` when one is given.
 */
export const make = (
  baseUrl: string,
  config?: SvcConfig
): Effect.Effect<SvcClientService, never, HttpClient.HttpClient> => {
  const state = makeState(baseUrl, config)
  return Effect.flatMap(HttpClientService, (client: HttpClient.HttpClient) =>
    Effect.map(Effect.promise(loadAdapter), ({ fromHttpClient }) =>
      fromState(
        state,
        transportFor(config, () => fromHttpClient(client)),
        effectFace
      )
    )
  )
}
