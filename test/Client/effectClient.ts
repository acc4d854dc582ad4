/**
 * The Effect API under the transport conformance suite's client shape, on either Effect line (an
 * Effect 4 run resolves these imports to the Effect 4 binding).
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { foldError } from "../../src/common/client.js"
import {
  type ApiResponse,
  SvcClient,
  type SvcClientService,
  type SvcConfig,
  type SvcError
} from "../../src/v3/Client/index.js"
import type { ClientUnderTest, Settings } from "./conformance/suite.js"

/** The Effect API from `layerOf`, each request folded into an `ApiResponse` as the facade does. */
export const effectClient =
  (layerOf: (baseUrl: string, config?: SvcConfig) => Layer.Layer<SvcClient>) =>
  (baseUrl: string, config?: Settings | SvcConfig): ClientUnderTest => {
    const run = (f: (client: SvcClientService) => Effect.Effect<ApiResponse, SvcError>) =>
      Effect.runPromise(
        Effect.flatMap(SvcClient, f).pipe(
          Effect.match({
            onFailure: (error): ApiResponse => foldError(error),
            onSuccess: (response) => response
          }),
          Effect.provide(layerOf(baseUrl, config as SvcConfig))
        )
      )
    return {
      get: (endpoint, options) => run((client) => client.get(endpoint, options)),
      post: (endpoint, body, options) => run((client) => client.post(endpoint, body, options)),
      put: (endpoint, body, options) => run((client) => client.put(endpoint, body, options))
    }
  }
