/**
 * The request program shared by the Effect API and the Promise facade.
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type { ApiResponse } from "../ApiResponse.js"
import type {
  HttpMethod,
  RequestConfig,
  RequestInterceptor,
  RequestOptions,
  ResponseInterceptor,
  SvcConfig
} from "../SvcClient.js"
import {
  AbortedError,
  DecodeError,
  HttpError,
  InvalidRequestError,
  NetworkError,
  type SvcError,
  TimeoutError
} from "../SvcError.js"
import { encodeBody } from "./body.js"
import { assignHeaders, checkHeader, type HeaderRecord, hasHeader } from "./headers.js"
import {
  runOnRequest,
  runOnResponse,
  runRequestInterceptors,
  runResponseInterceptors
} from "./interceptors.js"
import {
  checkConfig,
  checkRequest,
  configTimeoutMillis,
  DEFAULT_RETRY_ATTEMPTS,
  DEFAULT_SESSION_HEADER,
  DEFAULT_TIMEOUT_MILLIS,
  describe,
  isAbortSignal,
  isStandardSchema,
  timeoutMillis
} from "./normalize.js"
import { errorText, liftEnvelope, parseBody, statusTextOf, toApiResponse } from "./response.js"
import { backoff, honourRetryAfter, isRetryableRequest, isTransient } from "./retry.js"
import { makeSessionState, resolveSession, type SessionState } from "./session.js"
import { enforcingClients, TimeLimitExceeded, timeLimits } from "./timeLimit.js"
import { appendParams, isSameOrigin, joinUrl, parseBaseUrl } from "./url.js"

/** Everything one client holds; shared by its two faces. */
export interface ClientState {
  readonly baseUrl: string
  readonly origin: string
  readonly config: SvcConfig
  readonly headers: HeaderRecord
  readonly requestInterceptors: Array<RequestInterceptor>
  readonly responseInterceptors: Array<ResponseInterceptor>
  readonly session: SessionState
  readonly sessionHeader: string
  readonly includeSession: boolean
  readonly timeoutMillis: number
  readonly retrySchedule: Schedule.Schedule<unknown, SvcError>
  readonly report: (error: Error) => void
}

const safeReport =
  (onError: SvcConfig["onError"]) =>
  (error: Error): void => {
    if (onError === undefined) return
    try {
      const result: unknown = onError(error)
      if (result instanceof Promise) result.catch(() => undefined)
    } catch {
      // a throwing onError must not change the outcome
    }
  }

/** Validates `baseUrl` and `config` and builds the state of a client. */
export const makeState = (baseUrl: string, config: SvcConfig = {}): ClientState => {
  const url = parseBaseUrl(baseUrl)
  checkConfig(config)
  const report = safeReport(config.onError)
  return {
    baseUrl,
    origin: url.origin,
    config,
    headers: assignHeaders({}, config.headers),
    requestInterceptors: [],
    responseInterceptors: [],
    session: makeSessionState(
      { sessionId: config.sessionId, getSessionId: config.getSessionId, storage: config.storage },
      report
    ),
    sessionHeader: (config.sessionHeader ?? DEFAULT_SESSION_HEADER).toLowerCase(),
    includeSession: config.includeSession ?? true,
    timeoutMillis:
      config.timeout === undefined
        ? DEFAULT_TIMEOUT_MILLIS
        : configTimeoutMillis(config.timeout, "timeout"),
    retrySchedule: config.retrySchedule ?? backoff(config.retryAttempts ?? DEFAULT_RETRY_ATTEMPTS),
    report
  }
}

/** Exactly the base URL's origin; the prefix test is a fast path that only ever says yes rightly. */
const sameOrigin = (state: ClientState, url: string): boolean =>
  url.startsWith(`${state.origin}/`) || isSameOrigin(url, state.origin)

/** A request config and the session id the client put in it, if any. */
interface Prepared {
  readonly config: RequestConfig
  readonly session: string | undefined
}

/**
 * The config an interceptor handed back, made ready to send: header names in lower case (a later
 * spelling of a name wins), checked like the caller's own; a timeout and signal it set, checked.
 * The session header stays on the base URL's origin: when an interceptor points the request
 * elsewhere, the id the client added is taken out again, under whatever case of its name.
 */
const finalConfig = (
  state: ClientState,
  config: RequestConfig,
  session: string | undefined
): Either.Either<RequestConfig, InvalidRequestError> => {
  const headers: HeaderRecord = {}
  for (const name of Object.keys(config.headers)) {
    const value = config.headers[name]
    try {
      checkHeader(name, value)
    } catch (cause) {
      return Either.left(
        new InvalidRequestError({
          argument: "RequestConfig.headers",
          reason: `(from an interceptor) are invalid: ${(cause as Error).message}`
        })
      )
    }
    headers[name.toLowerCase()] = value as string
  }
  if (
    session !== undefined &&
    headers[state.sessionHeader] === session &&
    !sameOrigin(state, config.url)
  ) {
    delete headers[state.sessionHeader]
  }
  if (config.timeout !== undefined) {
    const checked = timeoutMillis(config.timeout)
    if (Either.isLeft(checked)) {
      return Either.left(
        new InvalidRequestError({
          argument: "RequestConfig.timeout",
          reason: `(from an interceptor) ${checked.left}`
        })
      )
    }
  }
  if (config.signal !== undefined && !isAbortSignal(config.signal)) {
    return Either.left(
      new InvalidRequestError({
        argument: "RequestConfig.signal",
        reason: `(from an interceptor) must be an AbortSignal, got ${describe(config.signal)}`
      })
    )
  }
  return Either.right({ ...config, headers })
}

/** The request config before interceptors: URL, merged headers, session, timeout, signal. */
const prepare = (
  state: ClientState,
  method: HttpMethod,
  endpoint: string,
  body: unknown,
  options: RequestOptions<unknown, unknown>,
  timeout: number
): Effect.Effect<Prepared, TimeoutError> => {
  const url = appendParams(joinUrl(state.baseUrl, endpoint), options.params)
  const headers = assignHeaders(assignHeaders({}, state.headers), options.headers)
  const config: { -readonly [K in keyof RequestConfig]: RequestConfig[K] } = {
    method,
    url,
    headers,
    timeout
  }
  if (body !== undefined) config.body = body
  if (options.signal !== undefined) config.signal = options.signal
  const include = options.includeSession ?? state.includeSession
  if (!include || hasHeader(headers, state.sessionHeader) || !sameOrigin(state, url)) {
    return Effect.succeed({ config, session: undefined })
  }
  const lookup = resolveSession(state.session)
  // only a lookup that runs the application's code (getSessionId, storage) can take time
  const bounded = Exit.isExit(lookup) ? lookup : withTimeout(lookup, timeout, "the session lookup")
  return Effect.map(bounded, (id) => {
    if (id === undefined) return { config, session: undefined }
    const session = Redacted.value(id)
    headers[state.sessionHeader] = session
    return { config, session }
  })
}

/** A response that came back with a 2xx status. */
interface Received {
  readonly status: number
  readonly statusText: string | undefined
  readonly body: unknown
}

const transportError = (error: HttpClientError.HttpClientError): NetworkError | TimeoutError => {
  const cause = error.cause
  if (cause instanceof TimeLimitExceeded) {
    return new TimeoutError({ timeoutMillis: cause.timeoutMillis })
  }
  const detail =
    cause instanceof Error
      ? ((cause as Error & { code?: string }).code ?? cause.message)
      : error.reason
  return new NetworkError({
    reason: `${error.reason === "InvalidUrl" ? "invalid URL" : "request failed"} (${detail})`,
    cause
  })
}

/** One try: send, read, parse; non-2xx fails with `HttpError`. */
const attempt = (
  client: HttpClient.HttpClient,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<Received, SvcError> =>
  client.execute(request).pipe(
    Effect.flatMap((response) => Effect.map(response.text, (text) => ({ response, text }))),
    Effect.mapError(transportError),
    Effect.flatMap(({ response, text }): Effect.Effect<Received, SvcError> => {
      const status = response.status
      const headers = response.headers
      const body = parseBody(text, status, request.method, headers["content-type"])
      const statusText = statusTextOf(status, (response as { statusText?: string }).statusText)
      if (status >= 200 && status < 300) return Effect.succeed({ status, statusText, body })
      return Effect.fail(
        new HttpError({
          status,
          error: errorText(liftEnvelope(body), status, statusText),
          body,
          headers
        })
      )
    })
  )

/** The live clock's class: with it, timeouts use a plain timer instead of a racing sleep. */
const LiveClock = Clock.make().constructor

/**
 * Fails with `TimeoutError` when the live clock passes `timeoutMillis`: one forked fiber and a
 * timer, cheaper per request than a race against a sleeping fiber.
 */
const liveTimeout = <A, E>(
  effect: Effect.Effect<A, E>,
  timeoutMillis: number,
  waitingFor: string | undefined
) =>
  Effect.flatMap(Effect.fork(effect), (fiber) =>
    Effect.async<A, E | TimeoutError>((resume) => {
      let done = false
      const timer = setTimeout(() => {
        if (done) return
        done = true
        fiber.removeObserver(observer)
        resume(Effect.zipRight(Fiber.interrupt(fiber), Effect.fail(timeoutError)))
      }, timeoutMillis)
      const timeoutError = new TimeoutError(
        waitingFor === undefined ? { timeoutMillis } : { timeoutMillis, waitingFor }
      )
      const observer = (exit: Exit.Exit<A, E>) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resume(exit)
      }
      fiber.addObserver(observer)
      return Effect.suspend(() => {
        done = true
        clearTimeout(timer)
        fiber.removeObserver(observer)
        return Fiber.interrupt(fiber)
      })
    })
  )

/**
 * Fails with `TimeoutError` when `effect` takes longer than `timeoutMillis` (`0`: no limit).
 * `waitingFor` names the application's code it waited on, when it is not the exchange itself.
 */
const withTimeout = <A, E>(
  effect: Effect.Effect<A, E>,
  timeoutMillis: number,
  waitingFor?: string
): Effect.Effect<A, E | TimeoutError> =>
  timeoutMillis > 0
    ? Effect.clockWith((clock) =>
        clock.constructor === LiveClock
          ? liveTimeout(effect, timeoutMillis, waitingFor)
          : Effect.timeoutFail(effect, {
              duration: Duration.millis(timeoutMillis),
              onTimeout: () =>
                new TimeoutError(
                  waitingFor === undefined ? { timeoutMillis } : { timeoutMillis, waitingFor }
                )
            })
      )
    : effect

const withSignal = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  signal: AbortSignal | undefined
): Effect.Effect<A, E | AbortedError, R> => {
  if (signal === undefined) return effect
  if (signal.aborted) return Effect.fail(new AbortedError({ cause: signal.reason }))
  const aborted = Effect.async<never, AbortedError>((resume) => {
    const onAbort = () => resume(Effect.fail(new AbortedError({ cause: signal.reason })))
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })
  return Effect.raceFirst(effect, aborted)
}

/**
 * Retries transient failures on `schedule`. The retry machinery is only built after a first
 * transient failure, whose error is fed to the schedule without sending again.
 */
const retryAfterFirstFailure = <A>(
  once: Effect.Effect<A, SvcError>,
  schedule: Schedule.Schedule<SvcError, SvcError>
): Effect.Effect<A, SvcError> =>
  Effect.catchIf(once, isTransient, (first) => {
    let pending: SvcError | undefined = first
    const next = Effect.suspend(() => {
      if (pending === undefined) return once
      const error = pending
      pending = undefined
      return Effect.fail(error)
    })
    return Effect.retry(next, { schedule, while: isTransient })
  })

/**
 * Spans record request headers: add the session header to the redacted names. Only spans read
 * them, so without a tracer (the facade) this costs nothing.
 */
const redactSessionHeader = <A, E, R>(
  state: ClientState,
  config: RequestConfig,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  hasHeader(config.headers, state.sessionHeader)
    ? Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (tracing) =>
        tracing
          ? Effect.locallyWith(effect, Headers.currentRedactedNames, (names) => [
              ...names,
              state.sessionHeader
            ])
          : effect
      )
    : effect

/** Sends a prepared config with timeout per try and retry; the caller's signal aborts it all. */
const send = (
  state: ClientState,
  config: RequestConfig,
  retrySchedule: Schedule.Schedule<unknown, SvcError> | undefined,
  callerSignal: AbortSignal | undefined
): Effect.Effect<Received, SvcError, HttpClient.HttpClient> =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    Effect.flatMap(encodeBody(config.body), (body) => {
      const request = HttpClientRequest.make(config.method)(config.url).pipe(
        HttpClientRequest.setBody(body),
        HttpClientRequest.setHeaders(config.headers)
      )
      const timeoutMillis = config.timeout ?? state.timeoutMillis
      let once: Effect.Effect<Received, SvcError>
      if (enforcingClients.has(client)) {
        if (timeoutMillis > 0) timeLimits.set(request, timeoutMillis)
        once = attempt(client, request)
      } else {
        once = withTimeout(attempt(client, request), timeoutMillis)
      }
      // the caller's signal governs the whole request; one an interceptor set governs the exchange
      const signal = config.signal === callerSignal ? undefined : config.signal
      const retried = isRetryableRequest(config.method, config.headers)
        ? retryAfterFirstFailure(once, honourRetryAfter(retrySchedule ?? state.retrySchedule))
        : once
      return withSignal(redactSessionHeader(state, config, retried), signal)
    })
  )

/** Decodes `data` with an `effect/Schema` or a Standard Schema validator. */
const decode = <A, I>(
  response: ApiResponse<unknown>,
  schema: RequestOptions<A, I>["schema"]
): Effect.Effect<ApiResponse<A>, DecodeError> => {
  if (schema === undefined) return Effect.succeed(response as ApiResponse<A>)
  const failed = (detail: string, cause: unknown) =>
    new DecodeError({ status: response.status, body: response.data, detail, cause })
  if (isStandardSchema(schema)) {
    return Effect.tryPromise({
      try: async () => schema["~standard"].validate(response.data),
      catch: (cause) => failed(cause instanceof Error ? cause.message : String(cause), cause)
    }).pipe(
      Effect.flatMap((result) =>
        result.issues === undefined
          ? Effect.succeed({ ...response, data: result.value as A })
          : Effect.fail(failed(result.issues.map(describeIssue).join("; "), result.issues))
      )
    )
  }
  return Schema.decodeUnknown(schema as Schema.Schema<A, I, never>)(response.data).pipe(
    Effect.map((data): ApiResponse<A> => ({ ...response, data })),
    Effect.mapError((cause) => failed(ParseResult.TreeFormatter.formatErrorSync(cause), cause))
  )
}

const describeIssue = (issue: {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}): string => {
  const path = (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part))
  return path.length === 0 ? issue.message : `${path.join(".")}: ${issue.message}`
}

/**
 * The whole request: check, prepare, interceptors, `onRequest`, send (retry, timeout), envelope,
 * response interceptors, decode, `onResponse`. The caller's signal aborts every phase; the timeout
 * bounds each try and every piece of the application's code the request waits on.
 */
export const request = <A, I>(
  state: ClientState,
  method: HttpMethod,
  endpoint: string,
  body: unknown,
  options: RequestOptions<A, I> = {}
): Effect.Effect<ApiResponse<A>, SvcError, HttpClient.HttpClient> =>
  Effect.suspend(() => {
    const checked = checkRequest(
      endpoint,
      options as RequestOptions<unknown, unknown>,
      state.timeoutMillis
    )
    if (Either.isLeft(checked)) {
      state.report(checked.left)
      return Effect.fail(checked.left)
    }
    const timeout = checked.right.timeoutMillis
    // the application's code runs only when there is some: no timer is set otherwise
    const bounded = <B, E>(effect: Effect.Effect<B, E>, waitingFor: string) =>
      Exit.isExit(effect) ? effect : withTimeout(effect, timeout, waitingFor)
    const { onRequest, onResponse } = state.config
    const requestInterceptors = state.requestInterceptors
    const responseInterceptors = state.responseInterceptors
    const program = prepare(
      state,
      method,
      endpoint,
      body,
      options as RequestOptions<unknown, unknown>,
      timeout
    ).pipe(
      Effect.flatMap(({ config, session }) =>
        Effect.flatMap(
          bounded(runRequestInterceptors(requestInterceptors, config), "the request interceptors"),
          (intercepted) => finalConfig(state, intercepted, session)
        )
      ),
      Effect.tap((config) =>
        onRequest === undefined
          ? Effect.void
          : bounded(runOnRequest(onRequest, config), "onRequest")
      ),
      Effect.flatMap((config) => send(state, config, options.retrySchedule, options.signal)),
      Effect.map((received) =>
        toApiResponse(received.status, liftEnvelope(received.body), received.statusText)
      ),
      Effect.flatMap((response) =>
        bounded(
          runResponseInterceptors(responseInterceptors, response),
          "the response interceptors"
        )
      ),
      Effect.flatMap((response) => decode(response, options.schema)),
      Effect.tap((response) =>
        onResponse === undefined
          ? Effect.void
          : bounded(runOnResponse(onResponse, response), "onResponse")
      )
    )
    return withSignal(program, options.signal).pipe(
      Effect.tapError((error) => Effect.sync(() => state.report(error)))
    )
  })
