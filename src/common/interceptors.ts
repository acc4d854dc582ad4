/**
 * The interceptor pipeline: request interceptors in registration order, then `onRequest` (an
 * observer); response interceptors in order, then `onResponse` (an observer). Any throw or
 * rejection, or an interceptor's wrong return value, ends the request with an `InterceptorError`.
 */
import * as Effect from "effect/Effect"
import type { ApiResponse } from "../core/ApiResponse.js"
import { isRecord, messageOf } from "../core/describe.js"
import type { RequestConfig, RequestInterceptor, ResponseInterceptor } from "../core/request.js"
import { InterceptorError, type TimeoutError } from "./SvcError.js"

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { then?: unknown }).then === "function"

type Phase = "request" | "response"

/**
 * What a user function's promised answer is waited for under: the request's timeout. One that
 * answers at once is never timed (nothing could interrupt it, and a timer per call costs Effect 3
 * some 25 µs).
 */
export type Bound = <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E | TimeoutError>

/**
 * Runs `functions` in order, each on what the one before answered — an answer `valid` refuses
 * ends the chain with `InterceptorError(detail)`; without `valid`, answers are ignored (observers).
 * Those that answer at once run without a timer; from the first that answers with a promise on,
 * the rest of the chain runs under `bound`: one deadline for all of it.
 */
const inOrder = <F, A>(
  phase: Phase,
  functions: ReadonlyArray<F>,
  first: A,
  apply: (f: F, current: A) => unknown,
  bound: Bound,
  valid?: (answer: unknown) => answer is A,
  detail = ""
): Effect.Effect<A, InterceptorError | TimeoutError> => {
  const thrown = (cause: unknown) =>
    new InterceptorError({ phase, detail: messageOf(cause), cause })
  /** The chain from `index` on; `timed` once it runs under `bound`. */
  const from = (
    index: number,
    current: A,
    timed: boolean
  ): Effect.Effect<A, InterceptorError | TimeoutError> => {
    if (index === functions.length) return Effect.succeed(current)
    const next = (answer: unknown, timed: boolean) => {
      if (valid === undefined) return from(index + 1, current, timed)
      try {
        if (valid(answer)) return from(index + 1, answer, timed)
      } catch {
        // an answer that cannot be read (a getter or Proxy that throws) is not one
      }
      return Effect.fail(new InterceptorError({ phase, detail }))
    }
    let answer: unknown
    let promised: boolean
    try {
      answer = apply(functions[index]!, current)
      // (inside the try: a `then` getter may throw too)
      promised = isThenable(answer)
    } catch (cause) {
      return Effect.fail(thrown(cause))
    }
    if (!promised) return next(answer, timed)
    const rest = Effect.flatMap(
      Effect.tryPromise({ try: () => Promise.resolve(answer), catch: thrown }),
      (value) => next(value, true)
    )
    return timed ? rest : bound(rest)
  }
  return Effect.suspend(() => from(0, first, false))
}

const isRequestConfig = (value: unknown): value is RequestConfig =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as RequestConfig).url === "string" &&
  typeof (value as RequestConfig).method === "string" &&
  // a `Headers` or `Map` keeps its entries apart from its keys: it would go as no headers
  isRecord((value as RequestConfig).headers)

const isApiResponse = (value: unknown): value is ApiResponse<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as ApiResponse).success === "boolean" &&
  typeof (value as ApiResponse).status === "number"

/** Runs request interceptors in order, each on the previous one's result. */
export const runRequestInterceptors = (
  interceptors: ReadonlyArray<RequestInterceptor>,
  config: RequestConfig,
  bound: Bound
): Effect.Effect<RequestConfig, InterceptorError | TimeoutError> =>
  inOrder(
    "request",
    interceptors,
    config,
    (interceptor, current) => interceptor(current),
    bound,
    isRequestConfig,
    "a request interceptor must return a RequestConfig with method, url and headers"
  )

/** Runs response interceptors in order, each on the previous one's result. */
export const runResponseInterceptors = (
  interceptors: ReadonlyArray<ResponseInterceptor>,
  response: ApiResponse<unknown>,
  config: RequestConfig,
  bound: Bound
): Effect.Effect<ApiResponse<unknown>, InterceptorError | TimeoutError> =>
  inOrder(
    "response",
    interceptors,
    response,
    (interceptor, current) => interceptor(current, config),
    bound,
    isApiResponse,
    "a response interceptor must return an ApiResponse"
  )

/** Calls `onRequest` or `onResponse`, which observe the final config or response: what they return is ignored. */
export const runObserver = <A>(
  phase: Phase,
  observer: (value: A) => unknown,
  value: A,
  bound: Bound
): Effect.Effect<void, InterceptorError | TimeoutError> =>
  Effect.asVoid(inOrder(phase, [observer], value, (f, current) => f(current), bound))
