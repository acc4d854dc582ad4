/**
 * The Effect API over each of its transports, for tests of either Effect line: `layerDefault` over
 * the facade's two Node transports, and the `HttpClient` adapter over the line's
 * `NodeHttpClient.layerUndici` and `FetchHttpClient.layer` (an Effect 4 run resolves them to Effect 4).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { SvcClient, type SvcClientService, type SvcConfig } from "../../src/v3/Client/index.js"
import { FetchHttpClient, NodeHttpClient } from "../Auth/lineKit.js"
import { nodeTransports } from "./transports.js"

/** The client a layer gives, built for the rest of the caller's scope. */
export const built = (layer: Layer.Layer<SvcClient>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, SvcClient))

/** The Effect API over each of its transports, made for the rest of the caller's scope. */
export const effectClients: ReadonlyArray<
  readonly [
    string,
    (baseUrl: string, config?: SvcConfig) => Effect.Effect<SvcClientService, never, Scope.Scope>
  ]
> = [
  ...nodeTransports.map(
    ([name, transport]) =>
      [
        `layerDefault, ${name}`,
        (baseUrl: string, config?: SvcConfig) =>
          built(SvcClient.layerDefault(baseUrl, { ...transport, ...config }))
      ] as const
  ),
  [
    "HttpClient adapter over NodeHttpClient.layerUndici",
    (baseUrl, config) =>
      built(SvcClient.layer(baseUrl, config).pipe(Layer.provide(NodeHttpClient.layerUndici)))
  ],
  [
    "HttpClient adapter over FetchHttpClient.layer",
    (baseUrl, config) =>
      built(SvcClient.layer(baseUrl, config).pipe(Layer.provide(FetchHttpClient.layer)))
  ]
]
