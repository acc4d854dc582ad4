/**
 * The transport conformance suite on the Effect 4 line: undici (the facade's default, and
 * `SvcClient.layerDefault`), fetch (`config.fetch`), and the `HttpClient` adapter over
 * `@effect/platform-node`'s undici client and `effect/http`'s fetch client.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import {
  type ApiResponse,
  createSvc,
  SvcClient,
  type SvcClientService,
  type SvcConfig,
  type SvcError
} from "../../../src/Client/index.js"
import { foldError } from "../../../src/common/client.js"
import { type ClientUnderTest, conformance, type Settings } from "../../Client/conformance/suite.js"

/** The Effect API from `layerOf`, each request folded into an `ApiResponse` as the facade does. */
const effectClient =
  (layerOf: (baseUrl: string, config?: SvcConfig) => Layer.Layer<SvcClient>) =>
  (baseUrl: string, config?: Settings): ClientUnderTest => {
    const run = (f: (client: SvcClientService) => Effect.Effect<ApiResponse, SvcError>) =>
      Effect.runPromise(
        Effect.flatMap(SvcClient, f).pipe(
          Effect.catch((error) => Effect.succeed(foldError(error) as ApiResponse)),
          Effect.provide(layerOf(baseUrl, config as SvcConfig))
        )
      )
    return {
      get: (endpoint, options) => run((client) => client.get(endpoint, options)),
      post: (endpoint, body, options) => run((client) => client.post(endpoint, body, options)),
      put: (endpoint, body, options) => run((client) => client.put(endpoint, body, options))
    }
  }

/** The facade, with the suite's settings as its config. */
const facade = (config: Settings = {}) => config as SvcConfig

conformance({
  name: "Effect 4: undici (Node's default)",
  make: (baseUrl, config) => createSvc(baseUrl, facade(config))
})
conformance({
  name: "Effect 4: SvcClient.layerDefault",
  make: effectClient(SvcClient.layerDefault)
})
conformance({
  name: "Effect 4: fetch on Node (config.fetch)",
  make: (baseUrl, config) => createSvc(baseUrl, { ...facade(config), fetch: globalThis.fetch })
})
conformance({
  name: "Effect 4: HttpClient adapter over NodeHttpClient.layerUndici",
  make: effectClient((baseUrl, config) =>
    SvcClient.layer(baseUrl, config).pipe(Layer.provide(NodeHttpClient.layerUndici))
  )
})
conformance({
  name: "Effect 4: HttpClient adapter over FetchHttpClient.layer",
  make: effectClient((baseUrl, config) =>
    SvcClient.layer(baseUrl, config).pipe(Layer.provide(FetchHttpClient.layer))
  )
})
