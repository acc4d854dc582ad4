/**
 * Effect 4's `HttpClient` dialect: `effect/http`, as the shared adapter
 * (`common/httpClientTransport.ts`) uses it, member for member in the order of
 * `common/dialect.ts`. Loaded by the first layer that sends through an `HttpClient` (`#onDemand`).
 */
import * as Context from "effect/Context"
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
import type { HttpClientDialect } from "../common/dialect.js"
import type { Transport } from "../common/exchange.js"
import { fromHttpClient, manualRedirect } from "../common/httpClientTransport.js"
import { client } from "./dialect.js"

const disabled = () => true

export const httpClient: HttpClientDialect = {
  request: (method, url, headers) =>
    HttpClientRequest.make(method as "GET")(url).pipe(HttpClientRequest.setHeaders(headers)),
  bodyText: HttpClientRequest.bodyText,
  bodyUint8Array: HttpClientRequest.bodyUint8Array,
  setBody: HttpClientRequest.setBody,
  raw: HttpBody.raw,
  fold: (stream, initial, f) =>
    Stream.runFoldEffect(
      stream as HttpClientResponse.HttpClientResponse["stream"],
      () => initial,
      (state, chunk) => f(state, chunk)
    ),
  // set on the child itself, which ends with `effect`: nothing to put back (as updateContext would)
  forkQuiet: (effect, secretHeaders) =>
    Effect.forkChild(
      Effect.withFiber((fiber) => {
        const context = fiber.context
        fiber.setContext(
          context.pipe(
            Context.add(Headers.CurrentRedactedNames, [
              ...Context.get(context, Headers.CurrentRedactedNames),
              ...secretHeaders
            ]),
            Context.add(HttpClient.TracerDisabledWhen, disabled),
            Context.add(
              FetchHttpClient.RequestInit,
              manualRedirect(Context.getOrUndefined(context, FetchHttpClient.RequestInit))
            )
          )
        )
        return effect
      })
    )
}

/** A transport that sends through an `HttpClient` of this line. */
export const adapter = (http: unknown): Transport => fromHttpClient(client, httpClient, http)
