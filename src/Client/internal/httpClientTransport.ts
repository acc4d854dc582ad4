/**
 * A transport over any `@effect/platform` `HttpClient`, for Effect users who choose their own
 * (`NodeHttpClient.layerUndici`, `FetchHttpClient.layer`, a test client). Redirects are left to the
 * pipeline (`FetchHttpClient` is told `redirect: "manual"`), and a followed redirect's body is
 * never read: each exchange runs in a scope whose end aborts whatever is left of it. Compressed
 * bodies the client hands over as sent are decompressed as the runtime's own transport does (zlib
 * on Node, `DecompressionStream` elsewhere).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { FetchHttpClient, Headers, HttpBody, HttpClient, HttpClientRequest } from "effect/http"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { decompress } from "#transport"
import {
  answered,
  concat,
  describeCause,
  failed,
  isFollowedRedirect,
  redirectAnswer,
  type TransportFailure,
  type TransportResponse,
  tooLarge
} from "../../core/transport.js"
import { exchange, type Transport } from "./exchange.js"

class TooLarge {
  readonly _tag = "TooLarge"
  constructor(readonly status: number) {}
}

/**
 * Decompresses a body the client handed over as sent (undici-based clients do; fetch-based ones
 * decompress themselves): a body that does not decode is taken as already decoded.
 */
const decompressIfEncoded = (bytes: Uint8Array, encoding: string | undefined, limit: number) =>
  decompress(bytes, encoding, limit).catch(() => bytes)

const disabled = () => true

/** A transport that sends through `client`. */
export const fromHttpClient = (httpClient: HttpClient.HttpClient): Transport => {
  const client = HttpClient.withScope(httpClient)
  return (request) => {
    let outgoing = HttpClientRequest.make(request.method as "GET")(request.url).pipe(
      HttpClientRequest.setHeaders(request.headers)
    )
    if (request.body !== undefined) {
      const contentType = request.headers["content-type"]
      outgoing =
        typeof request.body === "string"
          ? HttpClientRequest.bodyText(outgoing, request.body, contentType)
          : contentType === undefined
            ? // bytes without a type go without a Content-Type, as with fetch
              HttpClientRequest.setBody(outgoing, HttpBody.raw(request.body))
            : HttpClientRequest.bodyUint8Array(outgoing, request.body, contentType)
    }
    const sent = client.execute(outgoing).pipe(
      Effect.flatMap((response) => {
        if (response.request.url !== outgoing.url) {
          // an HttpClient that follows redirects itself (HttpClient.followRedirects) went where
          // no origin check was made: say so rather than answer as if nothing happened
          return Effect.fail(
            failed(
              "the HttpClient followed a redirect itself; give SvcClient.layer one that does not: svc-sdk follows redirects, checking each hop's origin"
            )
          )
        }
        const headers = { ...response.headers }
        if (request.followRedirects && isFollowedRedirect(response.status, headers)) {
          // followed on its headers: the scope's end aborts the unread body
          return Effect.succeed(redirectAnswer(response.status, "", headers))
        }
        return response.stream.pipe(
          Stream.runFoldEffect(
            () => ({ chunks: [] as Array<Uint8Array>, size: 0 }),
            (acc, chunk: Uint8Array) => {
              const size = acc.size + chunk.byteLength
              if (size > request.maxResponseBytes) return Effect.fail(new TooLarge(response.status))
              acc.chunks.push(chunk)
              return Effect.succeed({ chunks: acc.chunks, size })
            }
          ),
          Effect.flatMap(({ chunks, size }) =>
            Effect.tryPromise({
              try: () =>
                decompressIfEncoded(
                  concat(chunks, size),
                  headers["content-encoding"],
                  request.maxResponseBytes
                ),
              catch: (cause) => failed("the body could not be decompressed", cause)
            })
          ),
          Effect.flatMap((decoded) =>
            decoded === "TooLarge"
              ? Effect.fail(tooLarge(response.status))
              : Effect.succeed<TransportResponse>({
                  status: response.status,
                  statusText: "",
                  headers,
                  body: decoded,
                  hiddenRedirect: false
                })
          )
        )
      }),
      Effect.mapError(
        (error): TransportFailure =>
          error instanceof TooLarge
            ? tooLarge(error.status)
            : "_tag" in error && (error._tag === "TooLarge" || error._tag === "Failed")
              ? (error as TransportFailure)
              : // the platform's error quotes the request, query and all: keep what lies under it
                failed(
                  describeCause((error as { cause?: unknown }).cause ?? error),
                  (error as { cause?: unknown }).cause
                )
      ),
      Effect.scoped,
      Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" })
    )
    // the client's spans record request headers: never the session's value
    const redacted = Effect.updateService(sent, Headers.CurrentRedactedNames, (names) => [
      ...names,
      ...request.secretHeaders
    ])
    // the call's own span (tracing.ts) stands for every exchange, and the pipeline adds its trace
    // context to requests for the base URL's origin only: the client makes no span of its own (one
    // would hold the URL's query as it is) and propagates nothing
    const program = Effect.provideService(redacted, HttpClient.TracerDisabledWhen, disabled)
    // run as an exchange of its own, with the caller's services (its span, Clock and others), so
    // that the try's deadline bounds it as it bounds every transport's
    return Effect.flatMap(Effect.context<never>(), (context) =>
      exchange((_, settle) => {
        const fiber = Effect.runForkWith(context)(program)
        fiber.addObserver((exit) => {
          if (Exit.isSuccess(exit)) return settle(answered(exit.value))
          const failure = Cause.findErrorOption(exit.cause)
          const defect = Cause.squash(exit.cause)
          settle(Option.isSome(failure) ? failure.value : failed(describeCause(defect), defect))
        })
        return () => fiber.interruptUnsafe()
      }, request)
    )
  }
}
