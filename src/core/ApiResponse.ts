/**
 * The one shape every request resolves to.
 *
 * @since 0.1.0
 */

/**
 * Paging information lifted from a response envelope's `meta`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResponseMeta {
  readonly page?: number
  readonly limit?: number
  readonly total?: number
  readonly totalPages?: number
  readonly [key: string]: unknown
}

/**
 * Why a request failed, when it did.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorCode =
  | "HTTP_ERROR"
  | "NETWORK_ERROR"
  | "TIMEOUT"
  | "ABORTED"
  | "DECODE_ERROR"
  | "INTERCEPTOR_ERROR"
  | "INVALID_REQUEST"
  | "RESPONSE_TOO_LARGE"

/**
 * A request that succeeded: the HTTP status was 2xx (and, with a `schema`, `data` decoded). `data`
 * is the body, or the envelope's `data`, or what the `schema` decoded it to; it is `undefined` for
 * a response without a body (204, 205, HEAD, empty), so type such a request `void` or give a schema
 * that accepts `undefined`. `error` is only the envelope's own `error`, if it had one.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiSuccess<T = unknown> {
  readonly success: true
  readonly data: T
  readonly error?: string
  readonly message?: string
  readonly status: number
  readonly meta?: ResponseMeta
  readonly code?: ErrorCode
  /**
   * The response's headers, names in lower case (repeated headers joined with `, `, `set-cookie`
   * with a newline).
   */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * A request that failed. `error` is a non-empty message: the envelope's `error`, else its
 * `message`, else `HTTP <status> <reason>`, or what went wrong when no response came. `status` is
 * the HTTP status, or `0` when no response came (network, timeout, abort, interceptor, invalid
 * request). `data` is the error response's body (or its envelope's `data`): what the server said,
 * never decoded with the `schema`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiFailure {
  readonly success: false
  readonly data?: unknown
  readonly error: string
  readonly message?: string
  readonly status: number
  readonly meta?: ResponseMeta
  readonly code: ErrorCode
  /**
   * The response's headers, names in lower case, on a failure that came from a response
   * (`HTTP_ERROR`, `DECODE_ERROR`); failures without a response have none.
   */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * The outcome of a request, discriminated by `success`: `if (response.success)` narrows `data` to
 * `T`; otherwise `error` and `code` are always there. `success` is `true` exactly when the HTTP
 * status is 2xx (and, with a `schema`, the body decoded). `status` is `0` when no response came.
 *
 * @example
 * ```ts
 * import type { ApiResponse } from "svc-sdk"
 *
 * declare const response: ApiResponse<{ readonly id: string }>
 * if (response.success) console.log(response.data.id)
 * else console.log(response.code, response.error)
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type ApiResponse<T = unknown> = ApiSuccess<T> | ApiFailure
