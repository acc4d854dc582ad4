/**
 * The transport conformance suite over every transport that runs on Node: undici (the facade's
 * default), fetch (`config.fetch`), and the `HttpClient` adapter over `@effect/platform`'s undici
 * and fetch clients. The browser's fetch runs the same cases in `test/browser`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import {
  type ApiResponse,
  createSvc,
  SvcClient,
  type SvcClientService,
  type SvcConfig,
  type SvcError
} from "../../src/Client/index.js"
import { foldError } from "../../src/Client/internal/facade.js"
import { type ClientUnderTest, conformance } from "./conformance/suite.js"

/** The Effect API over `layer`, each request folded into an `ApiResponse` as the facade does. */
const effectClient =
  (layer: Layer.Layer<HttpClient.HttpClient>) =>
  (baseUrl: string, config?: SvcConfig): ClientUnderTest => {
    const run = (f: (client: SvcClientService) => Effect.Effect<ApiResponse, SvcError>) =>
      Effect.runPromise(
        Effect.flatMap(SvcClient, f).pipe(
          Effect.catchAll((error) => Effect.succeed(foldError(error) as ApiResponse)),
          Effect.provide(SvcClient.layer(baseUrl, config)),
          Effect.provide(layer)
        )
      )
    return {
      get: (endpoint, options) => run((client) => client.get(endpoint, options)),
      post: (endpoint, body, options) => run((client) => client.post(endpoint, body, options)),
      put: (endpoint, body, options) => run((client) => client.put(endpoint, body, options))
    }
  }

conformance({ name: "undici (Node's default)", make: createSvc })
conformance({
  name: "SvcClient.layerDefault (the Effect API over the facade's transport)",
  make: (baseUrl, config) => {
    const run = (f: (client: SvcClientService) => Effect.Effect<ApiResponse, SvcError>) =>
      Effect.runPromise(
        Effect.flatMap(SvcClient, f).pipe(
          Effect.catchAll((error) => Effect.succeed(foldError(error) as ApiResponse)),
          Effect.provide(SvcClient.layerDefault(baseUrl, config))
        )
      )
    return {
      get: (endpoint, options) => run((client) => client.get(endpoint, options)),
      post: (endpoint, body, options) => run((client) => client.post(endpoint, body, options)),
      put: (endpoint, body, options) => run((client) => client.put(endpoint, body, options))
    }
  }
})
conformance({
  name: "fetch on Node (config.fetch)",
  make: (baseUrl, config) => createSvc(baseUrl, { ...config, fetch: globalThis.fetch })
})
conformance({
  name: "HttpClient adapter over NodeHttpClient.layerUndici",
  make: effectClient(NodeHttpClient.layerUndici)
})
conformance({
  name: "HttpClient adapter over FetchHttpClient.layer",
  make: effectClient(FetchHttpClient.layer)
})
