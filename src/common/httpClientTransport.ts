/**
 * A transport over any Effect `HttpClient`, for Effect users who choose their own
 * (`NodeHttpClient.layerUndici`, `FetchHttpClient.layer`, a test client), on both lines: the line's
 * `HttpClientDialect` gives its platform modules. Redirects are left to the pipeline (`FetchHttpClient`
 * is told `redirect: "manual"`), and a followed redirect's body is never read: it is aborted. An
 * exchange runs in no scope of its own: the platform aborts what is left of it when the body's
 * stream ends or the read is interrupted (a scope per exchange, whose end aborted it even once read,
 * cost the adapter more than a third of its throughput: measured). Compressed bodies the client hands over as sent
 * are decompressed as the runtime's own transport does (zlib on Node, `DecompressionStream`
 * elsewhere).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import { decompress, decompressStream } from "#transport"
import { codingsOf, isZlibWrapped } from "../core/decompress.js"
import { downloadMeter, uploadSent } from "../core/progress.js"
import {
  answered,
  concat,
  describeCause,
  failed,
  isFollowedRedirect,
  plainBytes,
  redirectAnswer,
  type TransportFailure,
  type TransportResponse,
  tooLarge
} from "../core/transport.js"
import type {
  ClientDialect,
  HttpClientDialect,
  PlatformClient,
  PlatformResponse
} from "./dialect.js"
import { exchange, type Transport } from "./exchange.js"

const MANUAL_REDIRECT: globalThis.RequestInit = { redirect: "manual" }

/**
 * `FetchHttpClient`'s request options (`RequestInit`) for an exchange: the application's own (a
 * proxy's `dispatcher`, `credentials`, `cache`), with redirects svc-sdk's to follow.
 */
export const manualRedirect = (init: globalThis.RequestInit | undefined): globalThis.RequestInit =>
  init === undefined ? MANUAL_REDIRECT : { ...init, redirect: "manual" }

class TooLarge {
  readonly _tag = "TooLarge"
  constructor(readonly status: number) {}
}

/**
 * Whether `bytes` open with gzip's magic bytes, which no text begins with: bytes of that coding,
 * surely. (A zlib header cannot tell: one text in 31 that starts with a letter such as "X" looks
 * like one.)
 */
const gzipSigned = (bytes: Uint8Array, encoding: string): boolean => {
  const coding = encoding.toLowerCase().trim()
  return (coding === "gzip" || coding === "x-gzip") && bytes[0] === 0x1f && bytes[1] === 0x8b
}

/**
 * Decompresses a body the client handed over as sent (undici-based clients do; fetch-based ones
 * decompress themselves): a body that does not decode is taken as already decoded, unless it
 * opens with gzip's magic (a gzip body cut short or corrupt fails, as on the runtime's own
 * transport).
 */
const decompressIfEncoded = (bytes: Uint8Array, encoding: string | undefined, limit: number) =>
  decompress(bytes, encoding, limit).catch((cause: unknown) => {
    if (encoding !== undefined && gzipSigned(bytes, encoding)) throw cause
    return bytes
  })

/**
 * A streamed body with the coding the client left undone: a gzip or deflate body whose first bytes
 * are not that coding's was decoded by the client (fetch-based clients keep the header) and goes
 * as it is.
 */
const decodeStreamIfEncoded = (
  body: ReadableStream<Uint8Array>,
  encoding: string | undefined
): ReadableStream<Uint8Array> => {
  if (encoding === undefined || encoding === "identity") return body
  const reader = body.getReader()
  let rest: ReadableStreamDefaultReader<Uint8Array> | undefined
  return new ReadableStream<Uint8Array>(
    {
      pull: async (controller) => {
        if (rest !== undefined) {
          const next = await rest.read()
          return next.done ? controller.close() : controller.enqueue(next.value)
        }
        const first = await reader.read()
        if (first.done) return controller.close()
        const coding = encoding.toLowerCase().trim()
        const bytes = first.value
        const encoded =
          coding === "gzip" || coding === "x-gzip"
            ? bytes[0] === 0x1f && bytes[1] === 0x8b
            : coding === "deflate"
              ? isZlibWrapped(bytes)
              : true
        const whole = new ReadableStream<Uint8Array>({
          start: (c) => c.enqueue(bytes),
          pull: (c) =>
            reader.read().then((next) => (next.done ? c.close() : c.enqueue(next.value))),
          cancel: (reason) => reader.cancel(reason)
        })
        rest = (encoded ? decompressStream(whole, encoding) : whole).getReader()
        const next = await rest.read()
        return next.done ? controller.close() : controller.enqueue(next.value)
      },
      cancel: (reason) => (rest ?? reader).cancel(reason)
    },
    { highWaterMark: 0 }
  )
}

/**
 * Whether the body can be read at once: its length is known and fits, and no coding is left to
 * undo (a client that decodes itself, as fetch does, would hand over more than the length says).
 * Anything else is read chunk by chunk, and stopped past the limit.
 */
const readsAtOnce = (headers: Readonly<Record<string, string>>, limit: number): boolean => {
  const length = headers["content-length"]
  if (length === undefined || !(Number(length) <= limit)) return false
  const encoding = headers["content-encoding"]
  return encoding === undefined || encoding === "identity"
}

/** What the platform's exchange failed with, as a transport failure. */
const transportFailureOf = (error: unknown): TransportFailure =>
  error instanceof TooLarge
    ? tooLarge(error.status)
    : typeof error === "object" &&
        error !== null &&
        "_tag" in error &&
        (error._tag === "TooLarge" || error._tag === "Failed")
      ? (error as TransportFailure)
      : // the platform's error quotes the request, query and all: keep what lies under it
        failed(
          describeCause((error as { cause?: unknown }).cause ?? error),
          (error as { cause?: unknown }).cause
        )

/** Whether a response has no body, whatever its headers say: HEAD's, and 204, 205 and 304. */
const hasNoBody = (method: string, status: number): boolean =>
  method === "HEAD" || status === 204 || status === 205 || status === 304

/** A transport that sends through `httpClient`. */
export const fromHttpClient = (
  line: ClientDialect,
  http: HttpClientDialect,
  httpClient: unknown
): Transport => {
  const client = httpClient as PlatformClient
  /**
   * A followed redirect's body, never read: a fiber of its own starts reading it, and is
   * interrupted once it has started (its turn comes before the caller's next one), which aborts
   * what is left of the exchange.
   */
  const discard = (response: PlatformResponse) =>
    Effect.flatMap(
      line.forkInContext(Effect.ignore(http.fold(response.stream, undefined, () => Effect.void))),
      (fork) => {
        const fiber = fork()
        return Effect.map(line.yieldNow, () => line.interrupt(fiber))
      }
    )
  return (request, interruptible) => {
    // what the exchange watches the body with (`idleTimeout`), given when it starts: before an
    // answer from the network can come (one an in-memory client gives at once goes unwatched)
    const watch: { arrived?: ((held?: boolean) => void) | undefined } = {}
    let outgoing = http.request(request.method, request.url, request.headers) as never
    if (request.body !== undefined) {
      const contentType = request.headers["content-type"]
      outgoing = (
        typeof request.body === "string"
          ? http.bodyText(outgoing, request.body, contentType)
          : contentType === undefined
            ? // bytes without a type go without a Content-Type, as with fetch
              http.setBody(outgoing, http.raw(request.body) as never)
            : http.bodyUint8Array(outgoing, request.body, contentType)
      ) as never
    }
    const sent = client.execute(outgoing).pipe(
      Effect.flatMap((response) => {
        if (response.request.url !== (outgoing as { readonly url: string }).url) {
          // an HttpClient that follows redirects itself (HttpClient.followRedirects) went where
          // no origin check was made: say so rather than answer as if nothing happened
          // never retried: each try would send the session where the redirect leads again
          return Effect.fail({
            ...failed(
              "the HttpClient followed a redirect itself; give SvcClient.layer one that does not: svc-sdk follows redirects, checking each hop's origin"
            ),
            permanent: true
          } as const)
        }
        watch.arrived?.()
        if (request.streamed) request.streamed.status = response.status
        const headers = { ...response.headers }
        // the client sends a body whole: the answer shows it was sent
        uploadSent(request.onUploadProgress, request.body)
        if (request.followRedirects && isFollowedRedirect(response.status, headers)) {
          // followed on its headers: the unread body is aborted
          return Effect.as(discard(response), redirectAnswer(response.status, "", headers))
        }
        if (request.streamed !== undefined && response.status >= 200 && response.status < 300) {
          // handed over as it arrives: cancelling it interrupts the platform's read
          return Effect.map(
            // as every transport hands them over: Uint8Array, not a Node client's Buffer
            Stream.toReadableStreamEffect(
              Stream.map(response.stream as Stream.Stream<Uint8Array, unknown>, plainBytes)
            ),
            (body): TransportResponse => ({
              status: response.status,
              statusText: "",
              headers,
              body: new Uint8Array(0),
              stream: decodeStreamIfEncoded(body, headers["content-encoding"]),
              hiddenRedirect: false
            })
          )
        }
        const counter = downloadMeter(
          request.onDownloadProgress,
          request.method,
          response.status,
          headers
        )
        if (
          hasNoBody(request.method, response.status) ||
          // (a body under an idle limit is read chunk by chunk, each arrival telling it)
          (counter === undefined &&
            watch.arrived === undefined &&
            readsAtOnce(headers, request.maxResponseBytes))
        ) {
          // the platform's own read: no stream, no fold (and nothing left to abort after it);
          // a response that has no body is read so too (FetchHttpClient's stream of it fails)
          return Effect.map(response.arrayBuffer, (buffer): TransportResponse => {
            const body = new Uint8Array(buffer)
            counter?.add(body.byteLength)
            counter?.end()
            return { status: response.status, statusText: "", headers, body, hiddenRedirect: false }
          })
        }
        // download progress: counted as the chunks come, or once decoded when the body is encoded
        const encoding = headers["content-encoding"]
        const counterOfChunks =
          encoding === undefined || codingsOf(encoding).length === 0 ? counter : undefined
        return http
          .fold(response.stream, { chunks: [] as Array<Uint8Array>, size: 0 }, (acc, chunk) => {
            watch.arrived?.()
            const size = acc.size + chunk.byteLength
            if (size > request.maxResponseBytes) return Effect.fail(new TooLarge(response.status))
            acc.chunks.push(chunk)
            counterOfChunks?.add(chunk.byteLength)
            return Effect.succeed({ chunks: acc.chunks, size })
          })
          .pipe(
            Effect.flatMap(({ chunks, size }) => {
              // every byte is in: decoding is no silence of the server's
              watch.arrived?.(true)
              return Effect.tryPromise({
                try: () =>
                  decompressIfEncoded(
                    concat(chunks, size),
                    headers["content-encoding"],
                    request.maxResponseBytes
                  ),
                catch: (cause) => failed("the body could not be decompressed", cause)
              })
            }),
            Effect.flatMap((decoded) => {
              if (decoded === "TooLarge") return Effect.fail(tooLarge(response.status))
              if (counterOfChunks === undefined) counter?.add(decoded.byteLength)
              counter?.end()
              return Effect.succeed<TransportResponse>({
                status: response.status,
                statusText: "",
                headers,
                body: plainBytes(decoded),
                hiddenRedirect: false
              })
            })
          )
      })
    )
    // the client's spans record request headers: never the session's value; the call's own span
    // (common/tracing.ts) stands for every exchange, and the pipeline adds its trace context to
    // requests for the base URL's origin only: the client makes no span of its own (one would hold
    // the URL's query as it is) and propagates nothing. Run on a fiber of its own, with the caller's
    // services (its span, Clock and others), so that the try's deadline bounds it as it bounds every
    // transport's. Interrupting the caller aborts it at once (the exchange's interruption handler):
    // a finalizer of the caller's may run long, or call the same API over the same connections, and
    // it must not wait on this exchange. The caller's end interrupts it too, whatever happens
    // between the fork and the exchange
    return Effect.flatMap(http.forkQuiet(sent, request.secretHeaders), (fiber) => {
      const stop = () => line.interrupt(fiber)
      return exchange(
        line,
        (sent, settle) => {
          watch.arrived = sent.arrived
          fiber.addObserver((exit) => {
            if (Exit.isSuccess(exit)) return settle(answered(exit.value))
            const error = line.failureOf(exit.cause)
            if (error !== undefined) return settle(transportFailureOf(error))
            const defect = Cause.squash(exit.cause)
            settle(failed(describeCause(defect), defect))
          })
          return stop
        },
        request,
        interruptible,
        // past its deadline before it was sent: the exchange never starts, nor does its fiber
        stop
      )
    })
  }
}
