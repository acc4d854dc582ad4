/**
 * The default transport on Node: undici, dispatching through its global dispatcher, so that
 * `setGlobalDispatcher`, proxy agents and `MockAgent` apply. It reads the body as it arrives,
 * stops past `maxResponseBytes`, answers a followed redirect on its headers, and decompresses gzip,
 * deflate and br bodies (undici hands them over as sent).
 */
import { constants } from "node:buffer"
import type { Duplex } from "node:stream"
import type * as Zlib from "node:zlib"
import type { Dispatcher } from "undici"
import { codingsOf, type Decoder, decompressWith, isZlibWrapped } from "./decompress.js"
import { downloadMeter, type Meter, uploadChunks, uploadMeter, uploadSent } from "./progress.js"
import { fetchTransport } from "./transport.fetch.js"
import {
  type Abort,
  addHeader,
  answered,
  concat,
  describeCause,
  failed,
  isFollowedRedirect,
  type Outcome,
  plainBytes,
  readStream,
  redirectAnswer,
  type Send,
  type TransportFailure,
  type TransportRequest,
  tooLarge
} from "./transport.js"

/**
 * zlib, imported with the first encoded body: most programs never see one, and importing svc-sdk
 * without it is a few milliseconds faster.
 */
let zlibModule: Promise<typeof Zlib> | undefined
const loadZlib = (): Promise<typeof Zlib> => (zlibModule ??= import("node:zlib"))

type OneShot = (
  bytes: Uint8Array,
  options: Zlib.ZlibOptions | Zlib.BrotliOptions,
  callback: (error: Error | null, result: Buffer) => void
) => void

/** A zlib decoder under `limit`: a larger output is `TooLarge`. */
const zlibDecoder =
  (pick: (zlib: typeof Zlib) => OneShot): Decoder =>
  async (bytes, limit) => {
    const decode = pick(await loadZlib())
    return new Promise((resolve, reject) =>
      decode(bytes, { maxOutputLength: Math.min(limit, constants.MAX_LENGTH) }, (error, result) => {
        if (error === null) resolve(result)
        else if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") resolve("TooLarge")
        else reject(error)
      })
    )
  }

const gunzip = zlibDecoder((zlib) => zlib.gunzip)
const inflate = zlibDecoder((zlib) => zlib.inflate)
const inflateRaw = zlibDecoder((zlib) => zlib.inflateRaw)

/** Undoes `content-encoding` with zlib: gzip, deflate (wrapped or raw) and br. */
export const decompress = decompressWith({
  gzip: gunzip,
  "x-gzip": gunzip,
  deflate: (bytes, limit) => (isZlibWrapped(bytes) ? inflate : inflateRaw)(bytes, limit),
  br: zlibDecoder((zlib) => zlib.brotliDecompress)
})

type StreamDecoder = Zlib.Zlib & Duplex

/** zlib's streaming decoders, by coding; deflate's decides on its first bytes (wrapped or raw). */
const streamDecoders: Readonly<
  Record<string, (zlib: typeof Zlib, first: Uint8Array) => StreamDecoder>
> = {
  gzip: (zlib) => zlib.createGunzip(),
  "x-gzip": (zlib) => zlib.createGunzip(),
  deflate: (zlib, first) => (isZlibWrapped(first) ? zlib.createInflate() : zlib.createInflateRaw()),
  br: (zlib) => zlib.createBrotliDecompress()
}

/**
 * One coding undone as the reader asks for bytes, its decoder made when the first bytes come. The
 * decoder's output is read only when pulled, and zlib stops decoding while its output waits: a small
 * body that decodes to a huge one (a bomb) is held a zlib buffer at a time. zlib's failure (bytes
 * that are not of the coding, at once or at the end) errors the stream at once, and closes the
 * connection.
 */
const decodeCoding = (
  source: ReadableStream<Uint8Array>,
  make: (zlib: typeof Zlib, first: Uint8Array) => StreamDecoder
): ReadableStream<Uint8Array> => {
  const reader = source.getReader()
  let decoder: StreamDecoder | undefined
  let sourceDone = false
  let wake: (() => void) | undefined
  let reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined
  const wakeUp = () => {
    const resume = wake
    wake = undefined
    resume?.()
  }
  const start = (zlib: typeof Zlib, first: Uint8Array): StreamDecoder => {
    const made = make(zlib, first)
    // read when pulled, never flowing: zlib holds back what is not read
    made.on("readable", wakeUp)
    made.on("end", wakeUp)
    // bytes that are not of the coding end the body at once, a read of it waiting or not
    made.on("error", wakeUp)
    return made
  }
  /** The next decoded bytes, or `undefined` at the end. */
  const next = async (): Promise<Uint8Array | undefined> => {
    for (;;) {
      if (decoder?.errored) throw decoder.errored
      if (decoder !== undefined) {
        const out = decoder.read() as Buffer | null
        if (out !== null) return new Uint8Array(out.buffer, out.byteOffset, out.byteLength)
        // its output has all been read
        if (decoder.readableEnded) {
          // what follows the coded bytes, if anything, is not read: the connection closes
          if (!sourceDone) reader.cancel().catch(() => undefined)
          return undefined
        }
      }
      // while the decoder works on what it was given, its output or its taking the bytes in wakes
      // the read
      if (sourceDone || (decoder?.writableLength ?? 0) > 0) {
        await new Promise<void>((resolve) => {
          wake = resolve
        })
        continue
      }
      // else the body's next bytes, unless the decoder's last output (or its end, or its failure)
      // comes first: the body's read then stays under way for the next turn
      reading ??= reader.read()
      const read =
        decoder === undefined
          ? await reading
          : await Promise.race([
              reading,
              new Promise<undefined>((resolve) => {
                wake = () => resolve(undefined)
              })
            ])
      if (read === undefined) continue
      reading = undefined
      if (read.done) {
        sourceDone = true
        // an empty body decodes to nothing
        if (decoder === undefined) return undefined
        decoder.end()
      } else if (read.value.byteLength > 0) {
        decoder ??= start(await loadZlib(), read.value)
        // its callback says the decoder has taken these bytes in (on a failure, `error` says so)
        decoder.write(read.value, wakeUp)
      }
    }
  }
  return new ReadableStream<Uint8Array>(
    {
      pull: (controller) =>
        next().then(
          (bytes) => (bytes === undefined ? controller.close() : controller.enqueue(bytes)),
          (error: unknown) => {
            decoder?.destroy()
            reader.cancel(error).catch(() => undefined)
            throw error
          }
        ),
      cancel: (reason) => {
        decoder?.destroy()
        return reader.cancel(reason)
      }
    },
    { highWaterMark: 0 }
  )
}

/**
 * A body stream with its `content-encoding` undone as it arrives (codings last applied first); a
 * coding without a decoder leaves the bytes as they are from there on.
 */
export const decompressStream = (
  body: ReadableStream<Uint8Array>,
  encoding: string | undefined
): ReadableStream<Uint8Array> => {
  if (encoding === undefined) return body
  let out = body
  for (const coding of codingsOf(encoding)) {
    const make = Object.hasOwn(streamDecoders, coding) ? streamDecoders[coding] : undefined
    if (make === undefined) return out
    out = decodeCoding(out, make)
  }
  return out
}

/**
 * Response headers from undici's raw form (`[name, value, name, value, …]`), lower-case names,
 * repeated headers joined with `, ` (`set-cookie` with `\n`).
 */
const headersOf = (
  raw: ReadonlyArray<Buffer | string>,
  util: typeof import("undici")["util"]
): Record<string, string> => {
  const headers: Record<string, string> = {}
  for (let i = 0; i + 1 < raw.length; i += 2) {
    // undici's own lookup answers the common names with a string it keeps, lower-case already
    addHeader(headers, util.headerNameToString(raw[i]!), raw[i + 1]!.toString("latin1"))
  }
  return headers
}

/**
 * A transport over `dispatcher`, or undici's global dispatcher at the time of each request. The
 * handler uses undici's classic handler methods, which every undici a global dispatcher may come
 * from understands: this package's (7), and the one inside Node 20 and 22 (6), whose `fetch` may
 * have installed the global dispatcher first.
 */
export const undiciTransport =
  (dispatcher?: Dispatcher): Send =>
  (request, settle) => {
    if (undici !== undefined) return dispatch(undici, dispatcher, request, settle)
    // undici itself is loaded by the first request: importing svc-sdk stays cheap
    let abort: Abort | undefined
    let aborted: Error | undefined
    import("undici").then(
      (loaded) => {
        undici ??= loaded
        if (aborted === undefined) abort = dispatch(undici, dispatcher, request, settle)
      },
      (cause: unknown) => settle(failed(describeCause(cause), cause))
    )
    return (reason) => {
      aborted = reason
      abort?.(reason)
    }
  }

let undici: typeof import("undici") | undefined

const EMPTY = new Uint8Array(0)

/** Bytes of a streamed body read ahead of the caller before the socket is paused. */
const STREAM_HIGH_WATER_MARK = 64 * 1024

/**
 * undici's handler of one exchange. Made by a constructor, not written as an object literal: it
 * lives as long as the exchange, and V8 would pretenure a literal's handlers and with them all
 * that their closures hold (core/record.ts).
 */
class Handler {
  constructor(
    readonly onConnect: (abortRequest: (reason?: Error) => void) => void,
    readonly onHeaders: (
      statusCode: number,
      rawHeaders: Array<Buffer>,
      resume: () => void,
      message: string
    ) => boolean,
    readonly onData: (chunk: Buffer) => boolean,
    readonly onComplete: () => void,
    readonly onError: (error: Error) => void
  ) {}
}

const dispatch = (
  loaded: typeof import("undici"),
  dispatcher: Dispatcher | undefined,
  request: TransportRequest,
  settle: (outcome: Outcome) => void
): Abort => {
  let done = false
  let abortDispatch: ((reason: Error) => void) | undefined
  let pendingAbort: Error | undefined
  let status = 0
  let statusText = ""
  let headers: Record<string, string> = {}
  // not `[]`, for the reason the handler is a class's
  const chunks = Array.of<Uint8Array>()
  let size = 0
  // a 2xx body handed over as it arrives (request.streamed): where its bytes go
  let sink: ReadableStreamDefaultController<Uint8Array> | undefined
  // download progress: a body read whole, counted as it arrives, or once decoded when encoded
  let counter: Meter | undefined
  let counterOfChunks: Meter | undefined
  // an encoded body read whole, decoded as it arrives through `sink` (for its progress)
  let decodingWhole = false
  const end = () => {
    done = true
    chunks.length = 0
  }
  const abort = (reason: Error) => {
    end()
    if (abortDispatch === undefined) pendingAbort = reason
    else abortDispatch(reason)
  }
  const finish = (outcome: Outcome) => {
    if (done) return
    end()
    settle(outcome)
  }
  const fail = (failure: TransportFailure) => {
    finish(failure)
    abort(new Error("Request ended by the client"))
  }
  const respond = (body: Uint8Array) =>
    finish(answered({ status, statusText, headers, body: plainBytes(body), hiddenRedirect: false }))
  const upload = uploadBody(request)
  const onConnect = (abortRequest: (reason?: Error) => void) => {
    abortDispatch = abortRequest
    if (pendingAbort !== undefined) abortRequest(pendingAbort)
  }
  const onHeaders = (
    statusCode: number,
    rawHeaders: Array<Buffer>,
    resume: () => void,
    message: string
  ) => {
    status = statusCode
    // the answer's headers, not an interim one's (103 Early Hints): `timeout` waits for those
    if (statusCode >= 200) request.arrived?.()
    if (request.streamed) request.streamed.status = statusCode
    statusText = message ?? ""
    headers = headersOf(rawHeaders, loaded.util)
    // a body undici sent whole (an empty one) is reported once the answer shows it was sent
    if (upload === undefined) uploadSent(request.onUploadProgress, request.body)
    if (request.followRedirects && isFollowedRedirect(status, headers)) {
      // followed on its headers: the body is never waited for
      finish(answered(redirectAnswer(status, statusText, headers)))
      abort(new Error("Redirect followed"))
      return false
    }
    // the body as a stream its reader paces: paused while its queue is full, resumed on a pull
    const bodyStream = (onCancel: () => void) =>
      new ReadableStream<Uint8Array>(
        {
          start: (controller) => {
            sink = controller
          },
          pull: () => {
            // waiting for the server again
            request.arrived?.()
            resume()
          },
          cancel: () => {
            sink = undefined
            onCancel()
          }
        },
        { highWaterMark: STREAM_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength }
      )
    if (request.streamed !== undefined && status >= 200 && status < 300) {
      // read as the caller reads it
      const raw = bodyStream(() => abort(new Error("Response body cancelled")))
      finish(
        answered({
          status,
          statusText,
          headers,
          body: EMPTY,
          stream: decompressStream(raw, headers["content-encoding"]),
          hiddenRedirect: false
        })
      )
      return true
    }
    counter = downloadMeter(request.onDownloadProgress, request.method, status, headers)
    const encoding = headers["content-encoding"]
    if (encoding === undefined || codingsOf(encoding).length === 0) counterOfChunks = counter
    else if (counter !== undefined) {
      // asked for progress: an encoded body is decoded as it arrives, its decoded bytes
      // counted, and bounded by maxResponseBytes once decoded (a stopped read is failed below)
      decodingWhole = true
      readStream(
        decompressStream(
          bodyStream(() => undefined),
          encoding
        ),
        request.maxResponseBytes,
        counter
      ).then(
        (body) => (body === "TooLarge" ? fail(tooLarge(status)) : respond(body)),
        (cause: unknown) => finish(failed("the body could not be decompressed", cause))
      )
    }
    return true
  }
  const onData = (chunk: Buffer) => {
    request.arrived?.()
    if (sink !== undefined) {
      sink.enqueue(plainBytes(chunk))
      const more = (sink.desiredSize ?? 0) > 0
      // held back by its reader (a decoder, a progress callback): no silence of the server's
      if (!more) request.arrived?.(true)
      return more
    }
    if (done) return false
    size += chunk.byteLength
    // compressed bytes count too: a body is never held past the limit, sent or decoded
    if (size > request.maxResponseBytes) {
      fail(tooLarge(status))
      return false
    }
    chunks.push(chunk)
    counterOfChunks?.add(chunk.byteLength)
    return true
  }
  const onComplete = () => {
    // every byte is in: what follows (decoding) is no silence of the server's
    request.arrived?.(true)
    if (sink !== undefined) {
      sink.close()
      sink = undefined
      return
    }
    if (done) return
    const raw = concat(chunks, size)
    const encoding = headers["content-encoding"]
    if (encoding === undefined) {
      counter?.end()
      return respond(raw)
    }
    decompress(raw, encoding, request.maxResponseBytes).then(
      (body) => {
        if (body === "TooLarge") return finish(tooLarge(status))
        counter?.end()
        respond(body)
      },
      (cause: unknown) => finish(failed("the body could not be decompressed", cause))
    )
  }
  const onError = (error: Error) => {
    // the connection failed, not the decoding of what came
    if (decodingWhole) finish(failed(describeCause(error), error))
    if (sink !== undefined) {
      sink.error(error)
      sink = undefined
      return
    }
    finish(failed(describeCause(error), error))
  }
  const handler = new Handler(onConnect, onHeaders, onData, onComplete, onError)
  try {
    // a URL the pipeline checked; were it not one, the call fails rather than throw past it
    const url = new URL(request.url)
    ;(dispatcher ?? loaded.getGlobalDispatcher()).dispatch(
      {
        origin: url.origin,
        path: url.pathname + url.search,
        method: request.method as Dispatcher.HttpMethod,
        headers: upload === undefined ? request.headers : upload.headers,
        // undici sends an async iterable body chunk by chunk (its types leave iterables out)
        body:
          upload === undefined
            ? (request.body ?? null)
            : (upload.body as unknown as Exclude<Dispatcher.DispatchOptions["body"], undefined>),
        // the binding's deadline bounds the whole try, on the fiber's Clock
        headersTimeout: 0,
        bodyTimeout: 0
      },
      handler
    )
  } catch (cause) {
    finish(failed(describeCause(cause), cause))
  }
  return abort
}

/**
 * A request body undici sends in slices, each counted once written, when the request asks for
 * upload progress; its length goes in `Content-Length`, as undici sends a whole body's (an
 * iterable body would otherwise go chunked). Without a callback, or for an empty body, the body
 * goes as it is.
 */
const uploadBody = (
  request: TransportRequest
):
  | { readonly headers: Record<string, string>; readonly body: AsyncIterable<Uint8Array> }
  | undefined => {
  const counter = uploadMeter(request.onUploadProgress, request.body)
  if (counter === undefined || request.body === undefined) return undefined
  const bytes = typeof request.body === "string" ? Buffer.from(request.body) : request.body
  if (bytes.byteLength === 0) return undefined
  return {
    headers: { ...request.headers, "content-length": String(bytes.byteLength) },
    body: uploadChunks(bytes, counter)
  }
}

/**
 * Whether msw's `setupServer` (`@mswjs/interceptors`) intercepts `fetch` now. msw 2 (interceptors
 * 0.41) sets its fetch interceptor on `globalThis` under `Symbol.for("fetch-interceptor")`. msw 3
 * (interceptors 0.45) no longer does: its interceptors read requests off the socket, in one shared
 * request source kept in `globalThis.__MSW_INTERCEPTORS_REGISTRY`, and hand its fetch interceptor
 * only the requests `fetch` itself made (undici's own dispatcher passes through, to the network).
 * Both are read on each request: msw may start or stop listening after the client is made.
 */
const mswIntercepts = (): boolean => {
  const global = globalThis as Record<string | symbol, unknown>
  if (global[MSW2_FETCH_INTERCEPTOR] !== undefined) return true
  const registry = global.__MSW_INTERCEPTORS_REGISTRY
  if (!(registry instanceof Map)) return false
  const source = registry.get(MSW3_REQUEST_SOURCE) as { readyState?: unknown } | undefined
  return source?.readyState === "ACTIVE"
}

const MSW2_FETCH_INTERCEPTOR = Symbol.for("fetch-interceptor")
const MSW3_REQUEST_SOURCE = Symbol.for("node-http-request-source")

const viaUndici = undiciTransport()
const viaFetch = fetchTransport()

/**
 * The facade's transport on this runtime: undici, or `fetch` while msw intercepts it, so that an
 * app's tests with msw 2 or 3 see the client's requests (msw sees only what `fetch` sends, not
 * undici's dispatcher). Without msw, a request costs one property read more.
 */
export const defaultTransport: Send = (request, settle) =>
  mswIntercepts() ? viaFetch(request, settle) : viaUndici(request, settle)
