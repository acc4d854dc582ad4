/**
 * The Effect API over an `@effect/platform` `HttpClient`, for `SvcClient.make` and `SvcClient.layer`.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { loadAdapter } from "#httpClientAdapter"
import type { SvcClientService, SvcConfig } from "../SvcClient.js"
import { makeState } from "./client.js"
import { effectFace, fromState, transportFor } from "./service.js"

/**
 * `@effect/platform`'s `HttpClient` tag, by its key: the same service, without loading the platform
 * on Node before a layer needs it.
 */
const HttpClientTag = Context.GenericTag<HttpClient.HttpClient>("@effect/platform/HttpClient")

/**
 * Validates at once (throws on bad input), then sends through the `HttpClient` in context — or
 * through `config.fetch` when one is given.
 */
export const make = (
  baseUrl: string,
  config?: SvcConfig
): Effect.Effect<SvcClientService, never, HttpClient.HttpClient> => {
  const state = makeState(baseUrl, config)
  return Effect.flatMap(HttpClientTag, (client) =>
    Effect.map(loadAdapter, (fromHttpClient) =>
      fromState(
        state,
        transportFor(config, () => fromHttpClient(client)),
        effectFace
      )
    )
  )
}
