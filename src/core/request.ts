/**
 * The shapes a request takes on its way through the application's hooks, the same on both Effect
 * lines: plain data and functions, nothing of Effect's.
 */
import type { ApiResponse } from "./ApiResponse.js"
import type { HttpMethod } from "./http.js"

/**
 * What request interceptors and `onRequest` receive and return. Header names are in lower case;
 * `timeout` is the effective timeout in milliseconds (`0`: none).
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestConfig {
  readonly method: HttpMethod
  readonly url: string
  readonly headers: Record<string, string>
  readonly body?: unknown
  readonly timeout?: number
  readonly signal?: AbortSignal
}

/**
 * Gets the request config and returns the one to send (the same object changed, or a new one).
 * May be async. A throw or rejection ends the request with code `INTERCEPTOR_ERROR`.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestInterceptor = (config: RequestConfig) => RequestConfig | Promise<RequestConfig>

/**
 * Gets every response the server gave — a success or an HTTP failure (`success: false`, code
 * `HTTP_ERROR`) — with the request config that produced it, and returns the response to hand back.
 * So "on 401, refresh the session and send again" is one interceptor. May be async. A throw or
 * rejection ends the request with code `INTERCEPTOR_ERROR`. Failures without a response (network,
 * timeout, abort) go to `onError` only.
 *
 * A success it returns is decoded with the request's `schema`, if any. A failure it returns (even
 * one made of a 2xx) ends the request: an `HttpError` with its `status`, `error`, `data` (as
 * `body`) and `headers` in the Effect API, and so a failure with code `HTTP_ERROR` in the facade.
 *
 * @since 0.1.0
 * @category models
 */
export type ResponseInterceptor = (
  response: ApiResponse<unknown>,
  config: RequestConfig
) => ApiResponse<unknown> | Promise<ApiResponse<unknown>>

/**
 * `"follow"`: the client follows redirects itself, up to 10 hops, dropping the session and other
 * credentials on a hop to another origin. `"manual"`: a 3xx is the answer, `location` in its
 * `headers`.
 *
 * @since 0.1.0
 * @category models
 */
export type RedirectMode = "follow" | "manual"
