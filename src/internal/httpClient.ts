/**
 * Effect 4's `HttpClient` dialect: `effect/http`, as the shared adapter
 * (`common/httpClientTransport.ts`) uses it, member for member in the order of
 * `common/dialect.ts`. Loaded by the first layer that sends through an `HttpClient` (`#onDemand`).
 */
import * as Effect from "effect/Effect"
import {
  FetchHttpClient,
  Headers,
  HttpBody,
  HttpClient,
  HttpClientRequest,
  type HttpClientResponse
} from "effect/http"
import * as Stream from "effect/Stream"
import type { HttpClientDialect, PlatformResponse } from "../common/dialect.js"
import type { Transport } from "../common/exchange.js"
import { fromHttpClient } from "../common/httpClientTransport.js"
import { client } from "./dialect.js"

const disabled = () => true

type Request = HttpClientRequest.HttpClientRequest

export const httpClient: HttpClientDialect = {
  withScope: (http) => HttpClient.withScope(http as HttpClient.HttpClient),
  request: (method, url, headers) =>
    HttpClientRequest.make(method as "GET")(url).pipe(HttpClientRequest.setHeaders(headers)),
  bodyText: (request, text, contentType) =>
    HttpClientRequest.bodyText(request as Request, text, contentType),
  bodyBytes: (request, bytes, contentType) =>
    contentType === undefined
      ? HttpClientRequest.setBody(request as Request, HttpBody.raw(bytes))
      : HttpClientRequest.bodyUint8Array(request as Request, bytes, contentType),
  url: (request) => (request as Request).url,
  execute: (http, request) =>
    (http as HttpClient.HttpClient).execute(request as Request) as Effect.Effect<
      PlatformResponse,
      unknown
    >,
  fold: (stream, initial, f) =>
    Stream.runFoldEffect(
      stream as HttpClientResponse.HttpClientResponse["stream"],
      () => initial,
      (state, chunk) => f(state, chunk)
    ),
  quiet: (effect, secretHeaders) =>
    effect.pipe(
      Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
      Effect.updateService(Headers.CurrentRedactedNames, (names) => [...names, ...secretHeaders]),
      Effect.provideService(HttpClient.TracerDisabledWhen, disabled)
    )
}

/** A transport that sends through an `HttpClient` of this line. */
export const adapter = (http: unknown): Transport => fromHttpClient(client, httpClient, http)
