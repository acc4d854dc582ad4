/**
 * The default transport in browsers, React Native, Bun, Deno and workers: `fetch` (or the
 * `config.fetch` given). Redirects are never followed by fetch itself (`redirect: "manual"`): the
 * pipeline follows them, checking each hop's origin. A browser's fetch hides a redirect's target
 * (an opaque response); the pipeline then lets fetch follow it only when the request carries no
 * credentials of the client's.
 */
import { type Decoder, decompressWith, isZlibWrapped } from "./decompress.js"
import { downloadMeter, uploadSent } from "./progress.js"
import { supports } from "./supports.js"
import {
  answered,
  describeCause,
  failed,
  headersFromFetch,
  isFollowedRedirect,
  type Outcome,
  readStream,
  redirectAnswer,
  type Send,
  tooLarge
} from "./transport.js"

/**
 * A fetch-compatible function, as `config.fetch`.
 *
 * @since 0.1.0
 * @category models
 */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/**
 * A response's body as a stream: a fetch without response streams (React Native's, over XHR) has
 * no `body` at all, and gives the body whole when asked for it.
 */
const bodyOf = (response: Response): ReadableStream<Uint8Array> | null =>
  response.body !== undefined
    ? response.body
    : new ReadableStream({
        pull: async (controller) => {
          const bytes = new Uint8Array(await response.arrayBuffer())
          if (bytes.byteLength > 0) controller.enqueue(bytes)
          controller.close()
        }
      })

/** A transport over `fetchFunction`, or the global `fetch` at the time of each request. */
export const fetchTransport =
  (fetchFunction?: FetchFunction): Send =>
  (request, settle) => {
    const controller = new AbortController()
    let done = false
    const finish = (outcome: Outcome) => {
      if (done) return
      done = true
      settle(outcome)
    }
    const send = fetchFunction ?? globalThis.fetch
    const respond = async (): Promise<Outcome> => {
      const response = await send(request.url, {
        method: request.method,
        headers: request.headers,
        body: (request.body ?? null) as BodyInit | null,
        redirect: request.followHiddenRedirects ? "follow" : "manual",
        signal: controller.signal
      })
      request.arrived?.()
      if (request.streamed) request.streamed.status = response.status
      // fetch sends a body of known length whole (a request stream would go chunked, and needs
      // HTTP/2 in browsers): the response's arrival says it was sent
      uploadSent(request.onUploadProgress, request.body)
      if (response.type === "opaqueredirect") {
        return answered({
          status: 0,
          statusText: "",
          headers: {},
          body: new Uint8Array(0),
          hiddenRedirect: true
        })
      }
      if (!request.followHiddenRedirects && followedItself(response, request.url)) {
        // a fetch that follows redirects whatever it is asked (React Native's, over XHR): the
        // redirect went to another origin, where no check was made, the session with it; it
        // would again
        response.body?.cancel().catch(() => undefined)
        return {
          _tag: "Failed",
          reason: "fetch followed a redirect itself, past the origin checks",
          permanent: true
        }
      }
      const headers = headersFromFetch(response.headers)
      if (request.followRedirects && isFollowedRedirect(response.status, headers)) {
        // followed on its headers: the body is never waited for
        response.body?.cancel().catch(() => undefined)
        return answered(redirectAnswer(response.status, response.statusText, headers))
      }
      if (request.streamed !== undefined && response.status >= 200 && response.status < 300) {
        // fetch decompresses as it reads; cancelling the body aborts the exchange
        const stream = bodyOf(response) ?? new Blob([]).stream()
        return answered({
          status: response.status,
          statusText: response.statusText,
          headers,
          body: new Uint8Array(0),
          stream: abortOnCancel(stream, () =>
            controller.abort(new Error("Response body cancelled"))
          ),
          hiddenRedirect: false
        })
      }
      const body = await readStream(
        bodyOf(response),
        request.maxResponseBytes,
        downloadMeter(request.onDownloadProgress, request.method, response.status, headers),
        request.arrived
      )
      if (body === "TooLarge") return tooLarge(response.status)
      return answered({
        status: response.status,
        statusText: response.statusText,
        headers,
        body,
        hiddenRedirect: false
      })
    }
    respond().then(finish, (cause: unknown) => finish(failed(describeCause(cause), cause)))
    return (reason) => {
      done = true
      controller.abort(reason)
    }
  }

/**
 * Whether `response` came from another origin than `url`'s: a redirect the fetch followed itself.
 * (One on the same origin, or a service worker's answer from another of its URLs, keeps the
 * session where it may go.)
 */
const followedItself = (response: Response, url: string): boolean =>
  response.url !== "" && new URL(response.url).origin !== new URL(url).origin

/** `body`, read as the caller reads it; cancelling it also calls `abort`. */
const abortOnCancel = (
  body: ReadableStream<Uint8Array>,
  abort: () => void
): ReadableStream<Uint8Array> => {
  const reader = body.getReader()
  return new ReadableStream<Uint8Array>(
    {
      pull: (controller) =>
        reader.read().then((result) => {
          if (result.done) controller.close()
          else controller.enqueue(result.value)
        }),
      cancel: (reason) => {
        abort()
        return reader.cancel(reason).catch(() => undefined)
      }
    },
    { highWaterMark: 0 }
  )
}

export { decompressStream } from "./decompressStream.fetch.js"

/** The facade's transport on this runtime. */
export const defaultTransport: Send = fetchTransport()

/** A `DecompressionStream` decoder under `limit`. */
const streamDecoder =
  (format: string): Decoder =>
  (bytes, limit) =>
    readStream(
      new Blob([bytes as Uint8Array<ArrayBuffer>])
        .stream()
        .pipeThrough(
          new DecompressionStream(format as CompressionFormat) as unknown as ReadableWritablePair<
            Uint8Array,
            Uint8Array
          >
        ),
      limit
    )

/**
 * Undoes `content-encoding` with the platform's `DecompressionStream`: gzip and deflate (wrapped
 * or raw), and br where the platform has it. (fetch itself decompresses what it receives; this
 * serves the `HttpClient` adapter.)
 */
export const decompress = (
  bytes: Uint8Array,
  encoding: string | undefined,
  limit: number
): Promise<Uint8Array | "TooLarge"> => streamDecompress()(bytes, encoding, limit)

let decoders: ReturnType<typeof decompressWith> | undefined

const streamDecompress = () => {
  if (decoders !== undefined) return decoders
  const gzip = streamDecoder("gzip")
  const table: Record<string, Decoder> = {
    gzip,
    "x-gzip": gzip,
    deflate: (bytes, limit) =>
      streamDecoder(isZlibWrapped(bytes) ? "deflate" : "deflate-raw")(bytes, limit)
  }
  if (supports("brotli")) table.br = streamDecoder("brotli")
  decoders = decompressWith(table)
  return decoders
}
