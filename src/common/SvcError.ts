/**
 * The ways a request can fail, as tagged errors. The Promise facade folds them into an
 * `ApiResponse` with `success: false` and a `code`. None of them ever holds a session id.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type { ErrorCode } from "../core/ApiResponse.js"
import * as messages from "../core/messages.js"

/**
 * The server answered with a status outside 2xx. `error` is the envelope's `error`, else its
 * `message`, else `HTTP <status> <text>`; `body` is the parsed response body.
 *
 * @since 0.1.0
 * @category errors
 */
export class HttpError extends Data.TaggedError("HttpError")<{
  readonly status: number
  readonly error: string
  readonly body: unknown
  readonly headers: Readonly<Record<string, string>>
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  readonly code: ErrorCode = "HTTP_ERROR"
  /** @since 0.1.0 */
  override get message(): string {
    return this.error
  }
}

/**
 * No response came: the connection was refused, dropped or reset, or the URL was unusable.
 * `method` and `url` say which request; the message names them (the URL without its query).
 * `permanent` is `true` when sending again could only fail the same way (too many redirects, a
 * redirect to a location that is not http(s)): such a failure is never retried.
 *
 * @since 0.1.0
 * @category errors
 */
export class NetworkError extends Data.TaggedError("NetworkError")<{
  readonly reason: string
  readonly method?: string
  readonly url?: string
  readonly permanent?: boolean
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  readonly code: ErrorCode = "NETWORK_ERROR"
  /** @since 0.1.0 */
  override get message(): string {
    return messages.network(this)
  }
}

/**
 * No response came within the timeout, or a piece of the application's code the request waited on
 * (`waitingFor`: the session lookup, an interceptor, a callback) did not finish within it. `total`
 * is `true` when the whole call, retries included, ran out of `totalTimeout`. The message names
 * the request's method and URL (without its query).
 *
 * @since 0.1.0
 * @category errors
 */
export class TimeoutError extends Data.TaggedError("TimeoutError")<{
  readonly timeoutMillis: number
  readonly waitingFor?: string
  readonly total?: boolean
  readonly method?: string
  readonly url?: string
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  readonly code: ErrorCode = "TIMEOUT"
  /** @since 0.1.0 */
  override get message(): string {
    return messages.timeout(this)
  }
}

/**
 * The caller's `AbortSignal` aborted the request.
 *
 * @since 0.1.0
 * @category errors
 */
export class AbortedError extends Data.TaggedError("AbortedError")<{
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  readonly code: ErrorCode = "ABORTED"
  /** @since 0.1.0 */
  override get message(): string {
    return messages.aborted
  }
}

/**
 * A 2xx response whose `data` did not match `options.schema` (the message: "Response data does not
 * match the schema: …"), or a body not as asked: JSON that `responseType: "json"` could not parse,
 * an `sse` answer that is not `text/event-stream`, an event's data that is not JSON under a schema,
 * or a schema whose decoder could not be loaded ("Response could not be decoded: …"). `headers` are
 * the response's, names in lower case.
 *
 * @since 0.1.0
 * @category errors
 */
export class DecodeError extends Data.TaggedError("DecodeError")<{
  readonly status: number
  readonly body: unknown
  readonly detail: string
  readonly headers?: Readonly<Record<string, string>>
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  readonly code: ErrorCode = "DECODE_ERROR"
  /** @since 0.1.0 */
  override get message(): string {
    return messages.decode(this)
  }
}

/**
 * A request or response interceptor, or the `onRequest`/`onResponse` callback, threw or rejected,
 * or an interceptor returned something that is not a request config or a response.
 *
 * @since 0.1.0
 * @category errors
 */
export class InterceptorError extends Data.TaggedError("InterceptorError")<{
  readonly phase: "request" | "response"
  readonly detail: string
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  readonly code: ErrorCode = "INTERCEPTOR_ERROR"
  /** @since 0.1.0 */
  override get message(): string {
    return messages.interceptor(this)
  }
}

/**
 * A mistake of the caller's, seen when the request is made: a bad `timeout`, `signal`, `schema`,
 * options object or endpoint, or a body that cannot be sent (a function, a Symbol, a BigInt, a
 * circular object). `message` names the argument; nothing was sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidRequestError extends Data.TaggedError("InvalidRequestError")<{
  /** The argument at fault, e.g. `options.signal`. */
  readonly argument: string
  /** What is wrong with it, e.g. `must be an AbortSignal, got a string`. */
  readonly reason: string
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  readonly code: ErrorCode = "INVALID_REQUEST"
  /** @since 0.1.0 */
  override get message(): string {
    return messages.invalidRequest(this)
  }
}

/**
 * The response body was larger than `maxResponseBytes` (after decompression): the read stopped
 * there. On `sse`, an event was (its data lines, or a line that did not end): the connection
 * closed after the events before it. `status` is the status the response came with.
 *
 * @since 0.1.0
 * @category errors
 */
export class ResponseTooLargeError extends Data.TaggedError("ResponseTooLargeError")<{
  readonly maxResponseBytes: number
  readonly status?: number
  readonly cause?: unknown
}> {
  /** @since 0.1.0 */
  readonly code: ErrorCode = "RESPONSE_TOO_LARGE"
  /** @since 0.1.0 */
  override get message(): string {
    return messages.tooLarge(this)
  }
}

/**
 * Every way a request can fail.
 *
 * @since 0.1.0
 * @category errors
 */
export type SvcError =
  | HttpError
  | NetworkError
  | TimeoutError
  | AbortedError
  | DecodeError
  | InterceptorError
  | InvalidRequestError
  | ResponseTooLargeError

const TAGS: ReadonlySet<unknown> = new Set([
  "HttpError",
  "NetworkError",
  "TimeoutError",
  "AbortedError",
  "DecodeError",
  "InterceptorError",
  "InvalidRequestError",
  "ResponseTooLargeError"
])

/** Whether `error` is one of the client's failures (what a stream's body errors with). */
export const isSvcError = (error: unknown): error is SvcError =>
  typeof error === "object" &&
  error !== null &&
  TAGS.has((error as { readonly _tag?: unknown })._tag)
