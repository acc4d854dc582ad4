/**
 * A transport over any `@effect/platform` `HttpClient`, for Effect users who choose their own
 * (`NodeHttpClient.layerUndici`, `FetchHttpClient.layer`, a test client). Redirects are left to the
 * pipeline (`FetchHttpClient` is told `redirect: "manual"`); the time limit runs on Effect's
 * `Clock`, so `TestClock` drives it. Compressed bodies the client hands over as sent are
 * decompressed as the runtime's own transport does (zlib on Node, `DecompressionStream` elsewhere).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { decompress } from "#transport"
import {
  concat,
  describeCause,
  failed,
  type Transport,
  type TransportFailure,
  type TransportResponse,
  timedOut,
  tooLarge
} from "./transport.js"

class TooLarge {
  readonly _tag = "TooLarge"
}

/**
 * Decompresses a body the client handed over as sent (undici-based clients do; fetch-based ones
 * decompress themselves): a body that does not decode is taken as already decoded.
 */
const decompressIfEncoded = (bytes: Uint8Array, encoding: string | undefined, limit: number) =>
  decompress(bytes, encoding, limit).catch(() => bytes)

/** A transport that sends through `client`. */
export const fromHttpClient =
  (client: HttpClient.HttpClient): Transport =>
  (request) => {
    let outgoing = HttpClientRequest.make(
      request.method as HttpClientRequest.HttpClientRequest["method"]
    )(request.url).pipe(HttpClientRequest.setHeaders(request.headers))
    if (request.body !== undefined) {
      const contentType = request.headers["content-type"]
      outgoing =
        typeof request.body === "string"
          ? HttpClientRequest.bodyText(outgoing, request.body, contentType)
          : HttpClientRequest.bodyUint8Array(outgoing, request.body, contentType)
    }
    const exchange = client.execute(outgoing).pipe(
      Effect.flatMap((response) =>
        response.stream.pipe(
          Stream.runFoldEffect({ chunks: [] as Array<Uint8Array>, size: 0 }, (acc, chunk) => {
            const size = acc.size + chunk.byteLength
            if (size > request.maxResponseBytes) return Effect.fail(new TooLarge())
            acc.chunks.push(chunk)
            return Effect.succeed({ chunks: acc.chunks, size })
          }),
          Effect.map(({ chunks, size }) => ({ response, body: concat(chunks, size) }))
        )
      ),
      Effect.flatMap(({ response, body }) =>
        Effect.tryPromise({
          try: () =>
            decompressIfEncoded(
              body,
              response.headers["content-encoding"],
              request.maxResponseBytes
            ),
          catch: (cause) => failed("the body could not be decompressed", cause)
        }).pipe(
          Effect.flatMap((decoded) =>
            decoded === "TooLarge"
              ? Effect.fail(tooLarge)
              : Effect.succeed<TransportResponse>({
                  status: response.status,
                  statusText: "",
                  headers: { ...response.headers },
                  body: decoded,
                  hiddenRedirect: false
                })
          )
        )
      ),
      Effect.mapError(
        (error): TransportFailure =>
          error instanceof TooLarge
            ? tooLarge
            : "_tag" in error &&
                (error._tag === "TooLarge" || error._tag === "Failed" || error._tag === "TimedOut")
              ? (error as TransportFailure)
              : failed(describeCause((error as { cause?: unknown }).cause ?? error), error)
      ),
      Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" })
    )
    const timed =
      request.timeoutMillis > 0
        ? Effect.timeoutFail(exchange, {
            duration: Duration.millis(request.timeoutMillis),
            onTimeout: () => timedOut
          })
        : exchange
    // the client's spans record request headers: never the session's value
    const redacted = Effect.locallyWith(timed, Headers.currentRedactedNames, (names) => [
      ...names,
      ...request.secretHeaders
    ])
    // trace context goes to the base URL's origin only
    return request.propagateTrace
      ? redacted
      : Effect.locally(redacted, HttpClient.currentTracerPropagation, false)
  }
