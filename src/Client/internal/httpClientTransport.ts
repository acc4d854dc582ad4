/**
 * A transport over any `@effect/platform` `HttpClient`, for Effect users who choose their own
 * (`NodeHttpClient.layerUndici`, `FetchHttpClient.layer`, a test client). Redirects are left to the
 * pipeline (`FetchHttpClient` is told `redirect: "manual"`); the time limit runs on Effect's
 * `Clock`, so `TestClock` drives it. Compressed bodies the client hands over as sent are
 * decompressed with the platform's `DecompressionStream`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
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

/** Whether `bytes` still look compressed with `coding` (a fetch-based client decodes them). */
const stillEncoded = (coding: string, bytes: Uint8Array): boolean => {
  switch (coding) {
    case "gzip":
    case "x-gzip":
      return bytes[0] === 0x1f && bytes[1] === 0x8b
    case "deflate":
      // a zlib header: CM 8, and the header checksum
      return (
        bytes.length > 1 && (bytes[0]! & 0x0f) === 0x08 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0
      )
    default:
      return false
  }
}

const decompress = async (bytes: Uint8Array, encoding: string | undefined, limit: number) => {
  const coding = encoding?.trim().toLowerCase()
  if (coding === undefined || !stillEncoded(coding, bytes)) return bytes
  const format = coding === "deflate" ? "deflate" : "gzip"
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>])
    .stream()
    .pipeThrough(
      new DecompressionStream(format) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>
    )
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return concat(chunks, size)
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      return "TooLarge" as const
    }
    chunks.push(value)
  }
}

/** A transport that sends through `client`. */
export const fromHttpClient =
  (client: HttpClient.HttpClient): Transport =>
  (request) => {
    const headers = { ...request.headers }
    // what this adapter can undo when the client hands a body over compressed: not brotli
    if (headers["accept-encoding"] !== undefined) {
      headers["accept-encoding"] = headers["accept-encoding"]
        .split(",")
        .map((coding) => coding.trim())
        .filter((coding) => coding !== "br")
        .join(", ")
    }
    let outgoing = HttpClientRequest.make(
      request.method as HttpClientRequest.HttpClientRequest["method"]
    )(request.url).pipe(HttpClientRequest.setHeaders(headers))
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
            decompress(body, response.headers["content-encoding"], request.maxResponseBytes),
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
    // trace context goes to the base URL's origin only
    return request.propagateTrace
      ? timed
      : Effect.locally(timed, HttpClient.currentTracerPropagation, false)
  }
