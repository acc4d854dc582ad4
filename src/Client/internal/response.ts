/**
 * Response bodies and envelopes.
 */
import type { ApiResponse, ResponseMeta } from "../ApiResponse.js"

const ENVELOPE_KEYS = new Set(["success", "data", "error", "message", "meta", "status"])

const isJsonType = (contentType: string | undefined): boolean =>
  contentType !== undefined && /[/+]json\b/i.test(contentType)

/**
 * The body as a value: `undefined` for 204/205/HEAD/empty, JSON when the content type says so
 * (text that fails to parse stays text), text otherwise.
 */
export const parseBody = (
  text: string,
  status: number,
  method: string,
  contentType: string | undefined
): unknown => {
  if (status === 204 || status === 205 || method === "HEAD" || text === "") return undefined
  if (!isJsonType(contentType)) return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** An object whose keys are all envelope keys and that has `data`, `error` or `success`. */
export const isEnvelope = (body: unknown): body is Record<string, unknown> => {
  if (!isRecord(body)) return false
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

/** The `ApiResponse` for a received response. */
export const toApiResponse = (
  status: number,
  lifted: Lifted,
  statusText: string | undefined
): ApiResponse<unknown> => {
  const success = status >= 200 && status < 300
  const response: {
    success: boolean
    status: number
    data?: unknown
    message?: string
    error?: string
    meta?: ResponseMeta
    code?: "HTTP_ERROR"
  } = { success, status }
  if (lifted.data !== undefined) response.data = lifted.data
  if (lifted.message !== undefined) response.message = lifted.message
  if (lifted.meta !== undefined) response.meta = lifted.meta
  if (!success) {
    response.error = errorText(lifted, status, statusText)
    response.code = "HTTP_ERROR"
  } else if (lifted.error !== undefined) {
    response.error = lifted.error
  }
  return response
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  425: "Too Early",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout"
}

/** The reason phrase for a status, when the transport gives none. */
export const statusTextOf = (status: number, given: string | undefined): string | undefined =>
  given !== undefined && given !== "" ? given : STATUS_TEXT[status]
