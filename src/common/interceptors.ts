/**
 * The interceptor pipeline: request interceptors in registration order, then `onRequest` (an
 * observer); response interceptors in order, then `onResponse` (an observer). Any throw or
 * rejection, or an interceptor's wrong return value, ends the request with an `InterceptorError`.
 */
import * as Effect from "effect/Effect"
import type { ApiResponse } from "../core/ApiResponse.js"
import type { RequestConfig, RequestInterceptor, ResponseInterceptor } from "../core/request.js"
import { InterceptorError } from "./SvcError.js"

/** The message of what a user function threw. */
const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message || cause.name : String(cause)

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function"

/** Calls a user function, sync or async, turning a throw or rejection into an `InterceptorError`. */
const call = <A>(
  phase: "request" | "response",
  f: () => A | PromiseLike<A>
): Effect.Effect<A, InterceptorError> =>
  Effect.suspend(() => {
    let result: A | PromiseLike<A>
    try {
      result = f()
    } catch (cause) {
      return Effect.fail(new InterceptorError({ phase, detail: messageOf(cause), cause }))
    }
    if (!isThenable(result)) return Effect.succeed(result)
    return Effect.tryPromise({
      try: () => Promise.resolve(result),
      catch: (cause) => new InterceptorError({ phase, detail: messageOf(cause), cause })
    })
  })

const isRequestConfig = (value: unknown): value is RequestConfig =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as RequestConfig).url === "string" &&
  typeof (value as RequestConfig).method === "string" &&
  typeof (value as RequestConfig).headers === "object" &&
  (value as RequestConfig).headers !== null

const isApiResponse = (value: unknown): value is ApiResponse<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as ApiResponse).success === "boolean" &&
  typeof (value as ApiResponse).status === "number"

/**
 * Runs `step` for each function in order, each on the previous one's result. (`Effect.reduce` takes
 * its first value differently on the two Effect lines.)
 */
const inOrder = <F, A>(
  functions: ReadonlyArray<F>,
  first: A,
  step: (current: A, f: F) => Effect.Effect<A, InterceptorError>
): Effect.Effect<A, InterceptorError> => {
  const from = (index: number, current: A): Effect.Effect<A, InterceptorError> =>
    index === functions.length
      ? Effect.succeed(current)
      : Effect.flatMap(step(current, functions[index]!), (next) => from(index + 1, next))
  return from(0, first)
}

/** Runs request interceptors in order, each on the previous one's result. */
export const runRequestInterceptors = (
  interceptors: ReadonlyArray<RequestInterceptor>,
  config: RequestConfig
): Effect.Effect<RequestConfig, InterceptorError> => {
  return inOrder(interceptors, config, (current, interceptor) =>
    Effect.flatMap(
      call("request", () => interceptor(current)),
      (next): Effect.Effect<RequestConfig, InterceptorError> =>
        isRequestConfig(next)
          ? Effect.succeed(next)
          : Effect.fail(
              new InterceptorError({
                phase: "request",
                detail:
                  "a request interceptor must return a RequestConfig with method, url and headers"
              })
            )
    )
  )
}

/** Runs response interceptors in order, each on the previous one's result. */
export const runResponseInterceptors = (
  interceptors: ReadonlyArray<ResponseInterceptor>,
  response: ApiResponse<unknown>,
  config: RequestConfig
): Effect.Effect<ApiResponse<unknown>, InterceptorError> => {
  return inOrder(interceptors, response, (current, interceptor) =>
    Effect.flatMap(
      call("response", () => interceptor(current, config)),
      (next): Effect.Effect<ApiResponse<unknown>, InterceptorError> =>
        isApiResponse(next)
          ? Effect.succeed(next)
          : Effect.fail(
              new InterceptorError({
                phase: "response",
                detail: "a response interceptor must return an ApiResponse"
              })
            )
    )
  )
}

/** Calls `onRequest`, which observes the final config: what it returns is ignored. */
export const runOnRequest = (
  onRequest: (config: RequestConfig) => unknown,
  config: RequestConfig
): Effect.Effect<void, InterceptorError> => Effect.asVoid(call("request", () => onRequest(config)))

/** Calls `onResponse`, which observes the final response. */
export const runOnResponse = (
  onResponse: ((response: ApiResponse<unknown>) => unknown) | undefined,
  response: ApiResponse<unknown>
): Effect.Effect<void, InterceptorError> =>
  onResponse === undefined
    ? Effect.void
    : Effect.asVoid(call("response", () => onResponse(response)))
