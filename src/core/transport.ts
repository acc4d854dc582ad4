/**
 * The transport contract, shared by both Effect lines: a transport sends one prepared request and
 * hands back its status, headers and body bytes through a callback. Everything else — URL, headers,
 * session, interceptors, redirects, retry, time limits, decoding, envelope — is the one pipeline,
 * the same over every transport. A transport is plain TypeScript: each Effect line runs it in the
 * one exchange of its binding, which enforces the try's deadline on the fiber's `Clock` and aborts
 * the exchange when the fiber is interrupted.
 */
import { messageOf } from "./describe.js"
import type { Meter, ProgressCallback } from "./progress.js"

/** One request, ready to go. */
export interface TransportRequest {
  readonly method: string
  /** An absolute http(s) URL. */
  readonly url: string
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  /** JSON and text bodies are strings; binary and multipart bodies are bytes. */
  readonly body: string | Uint8Array | undefined
  /**
   * When the try this request belongs to must end, as a time of the fiber's `Clock` in
   * milliseconds; `undefined`: no limit. Every redirect hop of a try has the same deadline.
   */
  readonly deadline: number | undefined
  /** The longest body accepted, after decompression; `Infinity`: no limit. */
  readonly maxResponseBytes: number
  /**
   * The longest silence allowed once the headers are in, while the body is read whole
   * (`idleTimeout`); `0`: none. A streamed 2xx body is its reader's to watch.
   */
  readonly idleMillis: number
  /**
   * Called by the transport when the answer's headers arrive and with each piece of the body it
   * reads whole, as it arrives (before any decoding): set by the exchange to watch `idleMillis`.
   * Called with `true` when it stops waiting for the server: the last piece has come, or its own
   * reader holds the body back (then called again, without, when it reads on).
   */
  readonly arrived?: ((held?: boolean) => void) | undefined
  /**
   * Whether the pipeline follows redirects: then a redirect ({@link isFollowedRedirect}) is
   * answered on its headers alone, its body discarded unread (never waited for, never counted
   * against `maxResponseBytes`), as fetch does.
   */
  readonly followRedirects: boolean
  /**
   * Whether the transport may let its runtime follow a redirect it cannot expose (a browser's
   * fetch hides a redirect's target). The pipeline allows it only for requests that carry no
   * credentials of the client's.
   */
  readonly followHiddenRedirects: boolean
  /**
   * Whether trace context (`traceparent`, `b3`) may go with the request: only to the base URL's
   * origin, so that other origins learn nothing and browsers need no extra CORS preflight.
   */
  readonly propagateTrace: boolean
  /** Headers whose values never go into a span or a log (the session header). */
  readonly secretHeaders: ReadonlyArray<string>
  /**
   * Given when a 2xx body is handed over as it arrives ({@link TransportResponse.stream}),
   * decompressed and not bounded by `maxResponseBytes`, once the headers are in (`stream` and
   * `sse`); any other status is read whole, as always. How to close that body: the exchange adds
   * its closer the moment it answers (see {@link StreamedBody}).
   */
  readonly streamed?: StreamedBody | undefined
  /**
   * Told how much of the response's body has arrived, decoded, as the transport reads it
   * (`onDownloadProgress`, through `downloadMeter`); `undefined`: nobody asks, and nothing is
   * counted. A followed redirect's body and a streamed body are not the transport's to report
   * (the pipeline counts what the caller reads of a stream).
   */
  readonly onDownloadProgress: ProgressCallback | undefined
  /**
   * Told how much of the request's body has been sent (`onUploadProgress`, through
   * `uploadMeter`): as it is written where the transport streams a body, else once the response
   * shows it was sent. `undefined`: nobody asks.
   */
  readonly onUploadProgress: ProgressCallback | undefined
}

/** What came back. */
export interface TransportResponse {
  readonly status: number
  /** The reason phrase the server sent, or `""`. */
  readonly statusText: string
  /** Lower-case names; repeated headers joined with `, ` (`set-cookie` with `\n`). */
  readonly headers: Readonly<Record<string, string>>
  /** The body, decompressed; empty for a redirect the pipeline follows, and when streamed. */
  readonly body: Uint8Array
  /**
   * The body as it arrives, decompressed, when the request asked for it (`streamed`) and the
   * status is 2xx. Cancelling it aborts the exchange; a failure while it is read errors it.
   */
  readonly stream?: ReadableStream<Uint8Array>
  /**
   * The runtime answered a redirect whose target it hides (a browser's fetch in `manual` mode):
   * `status` is `0` and there is nothing to read.
   */
  readonly hiddenRedirect: boolean
}

/** Why no response came. */
export type TransportFailure =
  | {
      readonly _tag: "TimedOut"
      /** The body stalled this long (`idleTimeout`); absent: the try's deadline passed. */
      readonly idleMillis?: number
    }
  | { readonly _tag: "TooLarge"; readonly status: number }
  | {
      readonly _tag: "Failed"
      readonly reason: string
      readonly cause?: unknown
      /** Sending again could only fail the same way: never retried. */
      readonly permanent?: true
    }

/** Statuses whose `Location` the pipeline follows. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

/** Whether a response is a redirect the pipeline follows (when it follows redirects at all). */
export const isFollowedRedirect = (
  status: number,
  headers: Readonly<Record<string, string>>
): boolean => REDIRECT_STATUSES.has(status) && Boolean(headers.location)

/**
 * Whether `response`, the answer to `request`, may lead to another hop: a redirect the pipeline
 * follows, or one a browser's fetch hides. A runtime that followed the redirect itself gives the
 * answer.
 */
export const leadsOn = (
  request: TransportRequest,
  response: TransportResponse,
  redirect: "follow" | "manual"
): boolean =>
  !request.followHiddenRedirects &&
  (response.hiddenRedirect ||
    (redirect === "follow" && isFollowedRedirect(response.status, response.headers)))

/** The answer to a followed redirect: its status and headers, no body. */
export const redirectAnswer = (
  status: number,
  statusText: string,
  headers: Readonly<Record<string, string>>
): TransportResponse => ({ status, statusText, headers, body: EMPTY, hiddenRedirect: false })

const EMPTY = new Uint8Array(0)

/** What an exchange ended with: a response, or why none came. */
export type Outcome =
  | { readonly _tag: "Response"; readonly response: TransportResponse }
  | TransportFailure

/**
 * How to close a streamed body (`stream`, `sse`), whoever reads it: `close` ends every stream over
 * it, outermost first, and the exchange, and with them the connection. Each step that wraps the
 * body (the exchange that answers it, a progress meter, a response interceptor's stream, the
 * body's guard, the events) adds its own with {@link closeAlso} in the same step, with no yield
 * between, so a call or a `Stream` that ends at any step (interrupted while its fiber yielded) can
 * close it. Closing what has already ended does nothing; `close` never throws.
 */
export interface StreamedBody {
  close: (() => void) | undefined
  /**
   * The status of the last answer whose headers came, set by the transport: a stream that then
   * times out knows the server had answered (a non-2xx's body is read before the exchange ends).
   */
  status?: number
  /**
   * The 2xx body as the response hooks get it: the stream programs put their download meter here
   * (loaded with them), so that progress counts the body the transport hands over, as it is read.
   */
  metered?: (
    body: ReadableStream<Uint8Array>,
    status: number,
    headers: Readonly<Record<string, string>>
  ) => ReadableStream<Uint8Array>
}

/** Adds `close` to what closes `streamed`'s body, before what was there (a throw is ignored). */
export const closeAlso = (streamed: StreamedBody, close: () => void): void => {
  const previous = streamed.close
  streamed.close = () => {
    try {
      close()
    } catch {}
    previous?.()
  }
}

/** Aborts an exchange (the deadline passed, or the fiber waiting on it was interrupted). */
export type Abort = (reason: Error) => void

/**
 * A transport: starts sending `request`, calls `settle` once with the outcome, and returns how to
 * abort the exchange. It enforces `maxResponseBytes` itself; the deadline is the binding's.
 */
export type Send = (request: TransportRequest, settle: (outcome: Outcome) => void) => Abort

export const answered = (response: TransportResponse): Outcome => ({ _tag: "Response", response })
export const timedOut: TransportFailure = { _tag: "TimedOut" }
export const tooLarge = (status: number): TransportFailure => ({ _tag: "TooLarge", status })
/**
 * The codes of a request undici (Node's fetch's too) refuses to send, a header it cannot carry
 * (`Upgrade`, `Transfer-Encoding`, `Keep-Alive`, `Expect`): sent again, it would fail the same way.
 */
const REFUSED = /^UND_ERR_(INVALID_ARG|NOT_SUPPORTED)$/

/** Why no response came: `reason`, a transport error's code ({@link describeCause}) or a text. */
export const failed = (reason: string, cause?: unknown): TransportFailure => ({
  _tag: "Failed",
  reason,
  ...(cause !== undefined && { cause }),
  ...(REFUSED.test(reason) && { permanent: true })
})

/** A short description of a transport error: its code (`ECONNREFUSED`) or message. */
export const describeCause = (cause: unknown, depth = 0): string => {
  try {
    if (cause instanceof Error) {
      const code = (cause as Error & { code?: unknown }).code
      const inner = (cause as Error & { cause?: unknown }).cause
      if (typeof code === "string") return code
      // a chain of causes is followed a few links deep: it may loop
      if (inner !== undefined && inner !== cause && depth < 8)
        return describeCause(inner, depth + 1)
      return cause.message || cause.name
    }
  } catch {
    // a getter or Proxy that throws: read as any other value
  }
  return messageOf(cause)
}

/**
 * Adds a response header to `headers` (lower-case `name`): a repeated header is joined with `, `
 * (`set-cookie` with `\n`). Every name is an own property, `constructor` and `__proto__` too,
 * never one that `Object.prototype` answers for.
 */
export const addHeader = (headers: Record<string, string>, name: string, value: string): void => {
  const previous = headers[name]
  if (previous !== undefined && Object.hasOwn(headers, name)) {
    headers[name] = `${previous}${name === "set-cookie" ? "\n" : ", "}${value}`
  } else if (name === "__proto__") {
    Object.defineProperty(headers, name, {
      value,
      writable: true,
      enumerable: true,
      configurable: true
    })
  } else {
    headers[name] = value
  }
}

/** Response headers from a `Headers` object (fetch), lower-case, `set-cookie` kept apart. */
export const headersFromFetch = (headers: Headers): Record<string, string> => {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    if (name !== "set-cookie") addHeader(out, name, value)
  })
  const cookies = (headers as Headers & { getSetCookie?: () => Array<string> }).getSetCookie?.()
  if (cookies !== undefined && cookies.length > 0) out["set-cookie"] = cookies.join("\n")
  return out
}

/**
 * Collects a body stream, failing with `TooLarge` past `limit` bytes; `counter` (download
 * progress) counts each chunk as it comes.
 */
export const readStream = async (
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
  counter?: Meter,
  arrived?: (held?: boolean) => void
): Promise<Uint8Array | "TooLarge"> => {
  if (stream === null) {
    counter?.end()
    return new Uint8Array(0)
  }
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    // the wait for the next bytes is the server's; what is done with them (progress) is ours
    arrived?.()
    const { done, value } = await reader.read()
    arrived?.(true)
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      return "TooLarge"
    }
    chunks.push(value)
    counter?.add(value.byteLength)
  }
  counter?.end()
  return concat(chunks, size)
}

/**
 * Bytes as every transport hands them over: a `Uint8Array`, not the `Buffer` that Node's undici and
 * zlib make (whose `toString` decodes, whose `slice` shares memory). A view, no copy.
 */
export const plainBytes = (bytes: Uint8Array): Uint8Array =>
  bytes.constructor === Uint8Array
    ? bytes
    : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)

/** One array of the chunks' bytes. */
export const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}
