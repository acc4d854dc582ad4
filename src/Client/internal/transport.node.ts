/**
 * The facade's default transport on Node: undici.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type * as Layer from "effect/Layer"

export const layer: Layer.Layer<HttpClient.HttpClient> = NodeHttpClient.layerUndici
