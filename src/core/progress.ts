/**
 * Download and upload progress (`onDownloadProgress`, `onUploadProgress`), the same for every
 * transport and both Effect lines: a transport counts bytes as they move through a {@link Meter};
 * what is reported, and when, is decided here.
 */
import { codingsOf } from "./decompress.js"

/**
 * How far a body has moved: `loaded` bytes so far; `total`, the body's length when it is known
 * (a download's `Content-Length`, absent when the body is content-encoded or has none; an
 * upload's length); `progress`, `loaded / total` in [0, 1] when `total` is known.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly loaded: number
  readonly total?: number
  readonly progress?: number
}

/**
 * Called with a body's {@link Progress} as its bytes move (`onDownloadProgress`,
 * `onUploadProgress`). What it returns is ignored, and so is a throw.
 *
 * @since 0.1.0
 * @category models
 */
export type ProgressCallback = (progress: Progress) => void

/** A body's bytes counted as they move, reported to a callback. */
export interface Meter {
  /** `bytes` more have moved. */
  readonly add: (bytes: number) => void
  /** The body is complete: one call with its full length, unless the last call gave it. */
  readonly end: () => void
}

/**
 * Ignores what `result` rejects with, when it is a promise (one of another realm's included: a
 * callback made in a `vm` context or an iframe): a callback's failure never fails a request.
 */
export const ignoreRejection = (result: unknown): void => {
  if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function") {
    ;(result as PromiseLike<unknown>).then(undefined, () => undefined)
  }
}

/** Calls `callback`, ignoring what it throws or rejects with. */
const call = (callback: ProgressCallback, progress: Progress): void => {
  try {
    ignoreRejection(callback(progress))
  } catch {
    // a progress bar's failure never fails the request
  }
}

/** What is reported after `loaded` bytes of a body of `total` bytes (when known). */
export const progressOf = (loaded: number, total: number | undefined): Progress =>
  total === undefined
    ? { loaded }
    : // a server whose Content-Length is wrong never makes it pass 1
      { loaded, total, progress: total === 0 ? 1 : Math.min(1, loaded / total) }

/** A meter of a body of `total` bytes (when known) that reports to `callback`. */
export const meter = (callback: ProgressCallback, total: number | undefined): Meter => {
  let loaded = 0
  let reported = -1
  return {
    add: (bytes) => {
      if (bytes === 0) return
      loaded += bytes
      reported = loaded
      call(callback, progressOf(loaded, total))
    },
    end: () => {
      if (reported === loaded) return
      reported = loaded
      call(callback, progressOf(loaded, total))
    }
  }
}

/**
 * The length of a response's body as its headers announce it: `Content-Length`, unless the body
 * is content-encoded (what is counted is the decoded body) or there is none (HEAD, 204, 205, 304).
 */
export const downloadTotal = (
  method: string,
  status: number,
  headers: Readonly<Record<string, string>>
): number | undefined => {
  if (method === "HEAD" || status === 204 || status === 205 || status === 304) return undefined
  const encoding = headers["content-encoding"]
  if (encoding !== undefined && codingsOf(encoding).length > 0) return undefined
  const length = headers["content-length"]
  if (length === undefined || !/^\d{1,15}$/.test(length.trim())) return undefined
  return Number(length.trim())
}

/** The meter of a response's body, when the request asked for download progress. */
export const downloadMeter = (
  callback: ProgressCallback | undefined,
  method: string,
  status: number,
  headers: Readonly<Record<string, string>>
): Meter | undefined =>
  callback === undefined ? undefined : meter(callback, downloadTotal(method, status, headers))

/** The UTF-8 length of a string, without encoding it. */
export const utf8Length = (text: string): number => {
  let length = text.length
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) continue
    if (code < 0x800) length += 1
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        // a surrogate pair: four bytes for its two code units
        length += 2
        i++
      } else length += 2
    } else length += 2
  }
  return length
}

/** The length in bytes of a request body as it goes on the wire. */
const bodyLength = (body: string | Uint8Array): number =>
  typeof body === "string" ? utf8Length(body) : body.byteLength

/** The meter of a request's body, when it has one and the request asked for upload progress. */
export const uploadMeter = (
  callback: ProgressCallback | undefined,
  body: string | Uint8Array | undefined
): Meter | undefined =>
  callback === undefined || body === undefined ? undefined : meter(callback, bodyLength(body))

/**
 * Reports a request's body as sent, in one call, for a transport that cannot tell how much of it
 * is on its way (nothing, for a request without a body).
 */
export const uploadSent = (
  callback: ProgressCallback | undefined,
  body: string | Uint8Array | undefined
): void => {
  if (callback === undefined || body === undefined) return
  const total = bodyLength(body)
  call(callback, progressOf(total, total))
}

/** The size of the slices an upload is handed over in, each one reported once it is taken. */
export const UPLOAD_CHUNK_BYTES = 64 * 1024

/**
 * A request body as slices (views, not copies) that a transport takes one by one, each counted
 * once the transport asks for the next: once it has written the previous one.
 */
export async function* uploadChunks(bytes: Uint8Array, counter: Meter): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += UPLOAD_CHUNK_BYTES) {
    const slice = bytes.subarray(at, Math.min(at + UPLOAD_CHUNK_BYTES, bytes.byteLength))
    yield slice
    counter.add(slice.byteLength)
  }
  counter.end()
}

/** No callback: nothing to stop (one object for every request). */
const UNGUARDED = { callback: undefined, stop: () => undefined }

/**
 * A request's progress callbacks, stopped when the request ends: no call comes after the request
 * ended, however a transport's bytes still trickle in.
 */
export const guardedProgress = (
  callback: ProgressCallback | undefined
): { readonly callback: ProgressCallback | undefined; readonly stop: () => void } => {
  if (callback === undefined) return UNGUARDED
  let live = true
  return {
    // what the callback returns goes on: a rejected promise is ignored where it is called
    callback: (progress) => (live ? callback(progress) : undefined),
    stop: () => {
      live = false
    }
  }
}
