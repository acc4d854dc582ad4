/**
 * The facade's default transport in browsers, React Native and other runtimes: `fetch`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Layer from "effect/Layer"

export const layer: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer
