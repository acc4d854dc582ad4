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
 * The outcome of a request. `success` is `true` exactly when the HTTP status is 2xx (and, with a
 * `schema`, the body decoded). `status` is `0` when no response came.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiResponse<T = unknown> {
  readonly success: boolean
  readonly data?: T
  readonly error?: string
  readonly message?: string
  readonly status: number
  readonly meta?: ResponseMeta
  readonly code?: ErrorCode
  /**
   * The response's headers, names in lower case (repeated headers joined with `, `, `set-cookie`
   * with a newline). Present on every response that came from the server, failures included.
   */
  readonly headers?: Readonly<Record<string, string>>
}
