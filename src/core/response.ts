/**
 * Response bodies and envelopes.
 */
import type { ApiSuccess, ResponseMeta } from "./ApiResponse.js"
import { messageOf } from "./describe.js"
import { record } from "./record.js"

/** The fields of the pinned envelope. */
export const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  "success",
  "data",
  "error",
  "message",
  "meta",
  "status"
])

/**
 * How the body of a response is read: `"auto"` by its media type (JSON, text in its charset, or
 * bytes), or always as `"json"`, `"text"`, `"bytes"` (`Uint8Array`) or `"blob"`.
 *
 * @since 0.1.0
 * @category models
 */
export type ResponseType = "auto" | "json" | "text" | "bytes" | "blob"

export const RESPONSE_TYPES: ReadonlySet<string> = new Set([
  "auto",
  "json",
  "text",
  "bytes",
  "blob"
])

const NO_MEDIA_TYPE = { type: "", charset: undefined } as const

/** `type/subtype` of a `Content-Type`, lower-case, and its `charset`. */
const mediaTypeOf = (
  contentType: string | undefined
): { readonly type: string; readonly charset: string | undefined } => {
  if (contentType === undefined) return NO_MEDIA_TYPE
  // most responses name a bare type (`application/json`): no parameter to look at
  if (!contentType.includes(";"))
    return { type: contentType.trim().toLowerCase(), charset: undefined }
  const [type = "", ...parameters] = contentType.split(";")
  let charset: string | undefined
  for (const parameter of parameters) {
    const [name, value] = parameter.split("=")
    if (name?.trim().toLowerCase() === "charset" && value !== undefined) {
      charset = value.trim().replace(/^"|"$/g, "")
    }
  }
  return { type: type.trim().toLowerCase(), charset }
}

/** `application/json` and `*\/*+json`; not `json-seq`, `jsonl` and the like. */
const isJson = (type: string): boolean => type === "application/json" || type.endsWith("+json")

/** Media types read as text: `text/*`, XML, JavaScript, forms, JSON text sequences. */
const isText = (type: string): boolean =>
  type.startsWith("text/") ||
  type === "application/xml" ||
  type.endsWith("+xml") ||
  type === "application/javascript" ||
  type === "application/ecmascript" ||
  type === "application/x-www-form-urlencoded" ||
  JSON_SEQUENCES.has(type) ||
  type.endsWith("+json-seq")

/** JSON texts one after another: text, never parsed as one JSON value. */
const JSON_SEQUENCES: ReadonlySet<string> = new Set([
  "application/json-seq",
  "application/x-ndjson",
  "application/ndjson",
  "application/jsonl",
  "application/x-jsonlines"
])

const utf8 = new TextDecoder()

/** Text in the response's charset, UTF-8 by default or when the charset is unknown. */
const decodeText = (bytes: Uint8Array, charset: string | undefined): string => {
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    try {
      return new TextDecoder(charset).decode(bytes)
    } catch {
      // an unknown label: UTF-8 below
    }
  }
  return utf8.decode(bytes)
}

/** UTF-8 text when the bytes are valid UTF-8, else `undefined`. */
const strictUtf8 = (bytes: Uint8Array): string | undefined => {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
}

/** The body could not be read as the `responseType` asked: JSON that does not parse. */
export class UnreadableBody {
  constructor(
    readonly detail: string,
    readonly text: string
  ) {}
}

/**
 * The body as a value, by `responseType`. `auto`: `undefined` for 204/205/HEAD/empty; JSON for
 * JSON media types (a body that does not parse stays text); text for text media types, in the
 * response's charset; text for a body without a `Content-Type` that is valid UTF-8; otherwise the
 * bytes (`Uint8Array`).
 */
export const parseBody = (
  bytes: Uint8Array,
  status: number,
  method: string,
  contentType: string | undefined,
  responseType: ResponseType
): unknown => {
  const empty = status === 204 || status === 205 || method === "HEAD" || bytes.byteLength === 0
  const media = mediaTypeOf(contentType)
  switch (responseType) {
    case "bytes":
      return empty ? new Uint8Array(0) : bytes
    case "blob":
      return new Blob(empty ? [] : [bytes as Uint8Array<ArrayBuffer>], { type: contentType ?? "" })
    case "text":
      return empty ? "" : decodeText(bytes, media.charset)
    case "json": {
      if (empty) return undefined
      const text = decodeText(bytes, media.charset)
      try {
        return JSON.parse(text)
      } catch (cause) {
        return new UnreadableBody(messageOf(cause), text)
      }
    }
    case "auto": {
      if (empty) return undefined
      if (isJson(media.type)) {
        const text = decodeText(bytes, media.charset)
        try {
          return JSON.parse(text)
        } catch {
          return text
        }
      }
      if (isText(media.type)) return decodeText(bytes, media.charset)
      if (media.type === "") return strictUtf8(bytes) ?? bytes
      return bytes
    }
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A plain object, as `JSON.parse` makes them: not bytes, a `Blob` or an array. */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (!isRecord(value)) return false
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * A plain object whose keys are all envelope keys and that has `data`, `error` or `success`. (A
 * body of bytes is never one: listing the keys of a `Uint8Array` would name every byte.)
 */
export const isEnvelope = (body: unknown): body is Record<string, unknown> => {
  if (!isPlainObject(body)) return false
  const keys = Object.keys(body)
  if (keys.length === 0) return false
  for (const key of keys) if (!ENVELOPE_KEYS.has(key)) return false
  return "data" in body || "error" in body || "success" in body
}

/** The parts of a response body that go into an `ApiResponse`. */
export interface Lifted {
  readonly data?: unknown
  readonly message?: string
  readonly error?: string
  readonly meta?: ResponseMeta
}

const textOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return value === "" ? undefined : value
  if (isRecord(value) && typeof value.message === "string" && value.message !== "") {
    return value.message
  }
  return undefined
}

/** Lifts `data`, `message`, `error` and `meta` out of an envelope; any other body is `data`. */
export const liftEnvelope = (body: unknown): Lifted => {
  if (!isEnvelope(body)) return body === undefined ? {} : { data: body }
  const lifted: { data?: unknown; message?: string; error?: string; meta?: ResponseMeta } = {}
  if (body.data !== undefined) lifted.data = body.data
  const message = textOf(body.message)
  if (message !== undefined) lifted.message = message
  const error = textOf(body.error)
  if (error !== undefined) lifted.error = error
  if (isRecord(body.meta)) lifted.meta = body.meta as ResponseMeta
  return lifted
}

/** The envelope's `error`, else its `message`, else `HTTP <status> <text>`. */
export const errorText = (lifted: Lifted, status: number, statusText: string | undefined): string =>
  lifted.error ?? lifted.message ?? `HTTP ${status}${statusText ? ` ${statusText}` : ""}`

/**
 * The `ApiResponse` of a 2xx response. (A non-2xx one is an `HttpError`, whose response the
 * client builds with `fromHttpError`.)
 */
export const toApiSuccess = (
  status: number,
  lifted: Lifted,
  headers: Readonly<Record<string, string>>
): ApiSuccess<unknown> => {
  const response = record<{
    success: true
    status: number
    data?: unknown
    message?: string
    error?: string
    meta?: ResponseMeta
    headers?: Readonly<Record<string, string>>
  }>()
  response.success = true
  response.status = status
  if (lifted.data !== undefined) response.data = lifted.data
  if (lifted.message !== undefined) response.message = lifted.message
  if (lifted.meta !== undefined) response.meta = lifted.meta
  if (lifted.error !== undefined) response.error = lifted.error
  response.headers = headers
  // a body-less response has no `data` key: reading it gives `undefined`, which `unknown` holds
  return response as ApiSuccess<unknown>
}
