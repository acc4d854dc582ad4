/**
 * The interceptor pipeline: request interceptors in registration order, then `onRequest` (an
 * observer); response interceptors in order, then `onResponse` (an observer). Any throw or
 * rejection, or an interceptor's wrong return value, ends the request with an `InterceptorError`.
 */
import * as Effect from "effect/Effect"
import type { ApiResponse } from "../core/ApiResponse.js"
import type { RequestConfig, RequestInterceptor, ResponseInterceptor } from "../core/request.js"
import { InterceptorError, type TimeoutError } from "./SvcError.js"

/** The message of what a user function threw. */
const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message || cause.name : String(cause)

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

/** What a user function threw. */
class Threw {
  constructor(readonly error: InterceptorError) {}
}

/** What a user function answered, or what it threw. */
const answerOf = (phase: Phase, f: () => unknown): unknown => {
  try {
    return f()
  } catch (cause) {
    return new Threw(new InterceptorError({ phase, detail: messageOf(cause), cause }))
  }
}

/** A promised answer, its rejection an `InterceptorError`. */
const awaited = (phase: Phase, answer: PromiseLike<unknown>) =>
  Effect.tryPromise({
    try: () => Promise.resolve(answer),
    catch: (cause) => new InterceptorError({ phase, detail: messageOf(cause), cause })
  })

/**
 * Runs `functions` in order, each on what the one before answered (checked). Those that answer at
 * once run without a timer; from the first that answers with a promise on, the rest of the chain
 * runs under `bound`: one deadline for all of it. (`Effect.reduce` takes its first value
 * differently on the two Effect lines.)
 */
const inOrder = <F, A>(
  phase: Phase,
  functions: ReadonlyArray<F>,
  first: A,
  apply: (f: F, current: A) => unknown,
  check: (answer: unknown) => A | InterceptorError,
  bound: Bound
): Effect.Effect<A, InterceptorError | TimeoutError> => {
  /** The chain from `index` on; `timed` once it runs under `bound`. */
  const from = (
    index: number,
    current: A,
    timed: boolean
  ): Effect.Effect<A, InterceptorError | TimeoutError> => {
    if (index === functions.length) return Effect.succeed(current)
    const answer = answerOf(phase, () => apply(functions[index]!, current))
    if (!isThenable(answer)) {
      const next = answer instanceof Threw ? answer.error : check(answer)
      return next instanceof InterceptorError ? Effect.fail(next) : from(index + 1, next, timed)
    }
    const rest = Effect.flatMap(awaited(phase, answer), (value) => {
      const next = check(value)
      return next instanceof InterceptorError ? Effect.fail(next) : from(index + 1, next, true)
    })
    return timed ? rest : bound(rest)
  }
  return Effect.suspend(() => from(0, first, false))
}

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
    (next) =>
      isRequestConfig(next)
        ? next
        : new InterceptorError({
            phase: "request",
            detail: "a request interceptor must return a RequestConfig with method, url and headers"
          }),
    bound
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
    (next) =>
      isApiResponse(next)
        ? next
        : new InterceptorError({
            phase: "response",
            detail: "a response interceptor must return an ApiResponse"
          }),
    bound
  )

/** Calls `onRequest`, which observes the final config: what it returns is ignored. */
export const runOnRequest = (
  onRequest: (config: RequestConfig) => unknown,
  config: RequestConfig,
  bound: Bound
): Effect.Effect<void, InterceptorError | TimeoutError> =>
  Effect.asVoid(
    inOrder(
      "request",
      [onRequest],
      config,
      (f, current) => f(current),
      () => config,
      bound
    )
  )

/** Calls `onResponse`, which observes the final response: what it returns is ignored. */
export const runOnResponse = (
  onResponse: (response: ApiResponse<unknown>) => unknown,
  response: ApiResponse<unknown>,
  bound: Bound
): Effect.Effect<void, InterceptorError | TimeoutError> =>
  Effect.asVoid(
    inOrder(
      "response",
      [onResponse],
      response,
      (f, current) => f(current),
      () => response,
      bound
    )
  )
