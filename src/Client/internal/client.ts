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
import type * as Exit from "effect/Exit"
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
  NetworkError,
  type SvcError,
  TimeoutError
} from "../SvcError.js"
import { encodeBody } from "./body.js"
import { assignHeaders, checkHeader, type HeaderRecord, hasHeader } from "./headers.js"
import { runOnResponse, runRequestInterceptors, runResponseInterceptors } from "./interceptors.js"
import { errorText, liftEnvelope, parseBody, statusTextOf, toApiResponse } from "./response.js"
import { backoff, honourRetryAfter, isRetryableRequest, isTransient } from "./retry.js"
import { checkSessionId, makeSessionState, resolveSession, type SessionState } from "./session.js"
import { enforcingClients, TimeLimitExceeded, timeLimits } from "./timeLimit.js"
import { appendParams, isSameOrigin, joinUrl, parseBaseUrl } from "./url.js"

/** Default timeout: 30 s. */
export const DEFAULT_TIMEOUT_MILLIS = 30_000

/** Default number of retries. */
export const DEFAULT_RETRY_ATTEMPTS = 2

/** Default session header. */
export const DEFAULT_SESSION_HEADER = "X-Session-Id"

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

/** A timeout in milliseconds from a number (ms) or a Duration; `0` disables. */
export const timeoutMillisOf = (value: Duration.DurationInput, name: string): number => {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`${name} must be a finite number of milliseconds ≥ 0, got ${value}`)
    }
    return value
  }
  const decoded = Duration.decodeUnknown(value)
  if (decoded._tag === "None")
    throw new TypeError(`${name} must be a number of milliseconds or a Duration`)
  const millis = Duration.toMillis(decoded.value)
  if (!Number.isFinite(millis) || millis < 0) throw new RangeError(`${name} must be finite and ≥ 0`)
  return millis
}

const checkConfig = (config: SvcConfig): void => {
  if (typeof config !== "object" || config === null) {
    throw new TypeError("config must be an object")
  }
  const attempts = config.retryAttempts
  if (attempts !== undefined && (!Number.isInteger(attempts) || attempts < 0)) {
    throw new RangeError(`retryAttempts must be an integer ≥ 0, got ${attempts}`)
  }
  if (config.sessionHeader !== undefined) checkHeader(config.sessionHeader, "")
  if (config.headers !== undefined) {
    for (const [name, value] of Object.entries(config.headers)) checkHeader(name, value)
  }
  if (config.sessionId !== undefined) checkSessionId(config.sessionId)
  for (const name of ["getSessionId", "onRequest", "onResponse", "onError"] as const) {
    if (config[name] !== undefined && typeof config[name] !== "function") {
      throw new TypeError(`${name} must be a function`)
    }
  }
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
        : timeoutMillisOf(config.timeout, "timeout"),
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
 * The session header stays on the base URL's origin: when an interceptor points the request
 * elsewhere, the id the client added is taken out again.
 */
const dropForeignSession = (
  state: ClientState,
  config: RequestConfig,
  session: string | undefined
): RequestConfig => {
  if (session === undefined || sameOrigin(state, config.url)) return config
  if (config.headers[state.sessionHeader] !== session) return config
  const { [state.sessionHeader]: _dropped, ...headers } = config.headers
  return { ...config, headers }
}

/** The request config before interceptors: URL, merged headers, session, timeout, signal. */
const prepare = (
  state: ClientState,
  method: HttpMethod,
  endpoint: string,
  body: unknown,
  options: RequestOptions<unknown, unknown>
): Effect.Effect<Prepared> => {
  const url = appendParams(joinUrl(state.baseUrl, endpoint), options.params)
  const headers = assignHeaders(assignHeaders({}, state.headers), options.headers)
  const timeout =
    options.timeout === undefined
      ? state.timeoutMillis
      : timeoutMillisOf(options.timeout, "options.timeout")
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
  return Effect.map(resolveSession(state.session), (id) => {
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
const liveTimeout = <A>(effect: Effect.Effect<A, SvcError>, timeoutMillis: number) =>
  Effect.flatMap(Effect.fork(effect), (fiber) =>
    Effect.async<A, SvcError>((resume) => {
      let done = false
      const timer = setTimeout(() => {
        if (done) return
        done = true
        fiber.removeObserver(observer)
        resume(
          Effect.zipRight(Fiber.interrupt(fiber), Effect.fail(new TimeoutError({ timeoutMillis })))
        )
      }, timeoutMillis)
      const observer = (exit: Exit.Exit<A, SvcError>) => {
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

const withTimeout = <A>(
  effect: Effect.Effect<A, SvcError>,
  timeoutMillis: number
): Effect.Effect<A, SvcError> =>
  timeoutMillis > 0
    ? Effect.clockWith((clock) =>
        clock.constructor === LiveClock
          ? liveTimeout(effect, timeoutMillis)
          : Effect.timeoutFail(effect, {
              duration: Duration.millis(timeoutMillis),
              onTimeout: () => new TimeoutError({ timeoutMillis })
            })
      )
    : effect

const withSignal = <A>(
  effect: Effect.Effect<A, SvcError>,
  signal: AbortSignal | undefined
): Effect.Effect<A, SvcError> => {
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
  retrySchedule: Schedule.Schedule<unknown, SvcError> | undefined
): Effect.Effect<Received, SvcError, HttpClient.HttpClient> =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    Effect.flatMap(encodeBody(config.body), (body) => {
      const request = HttpClientRequest.make(config.method)(config.url).pipe(
        HttpClientRequest.setBody(body),
        HttpClientRequest.setHeaders(config.headers)
      )
      const timeoutMillis =
        config.timeout === undefined
          ? state.timeoutMillis
          : timeoutMillisOf(config.timeout, "timeout")
      let once: Effect.Effect<Received, SvcError>
      if (enforcingClients.has(client)) {
        if (timeoutMillis > 0) timeLimits.set(request, timeoutMillis)
        once = attempt(client, request)
      } else {
        once = withTimeout(attempt(client, request), timeoutMillis)
      }
      const retried = isRetryableRequest(config.method, config.headers)
        ? retryAfterFirstFailure(once, honourRetryAfter(retrySchedule ?? state.retrySchedule))
        : once
      return withSignal(redactSessionHeader(state, config, retried), config.signal)
    })
  )

const decode = <A, I>(
  response: ApiResponse<unknown>,
  schema: Schema.Schema<A, I, never> | undefined
): Effect.Effect<ApiResponse<A>, DecodeError> => {
  if (schema === undefined) return Effect.succeed(response as ApiResponse<A>)
  return Schema.decodeUnknown(schema)(response.data).pipe(
    Effect.map((data): ApiResponse<A> => ({ ...response, data })),
    Effect.mapError(
      (cause) =>
        new DecodeError({
          status: response.status,
          body: response.data,
          detail: ParseResult.TreeFormatter.formatErrorSync(cause),
          cause
        })
    )
  )
}

/** The whole request: prepare, interceptors, send with retry and timeout, envelope, decode. */
export const request = <A, I>(
  state: ClientState,
  method: HttpMethod,
  endpoint: string,
  body: unknown,
  options: RequestOptions<A, I> = {}
): Effect.Effect<ApiResponse<A>, SvcError, HttpClient.HttpClient> =>
  Effect.suspend(() => {
    if (typeof endpoint !== "string") {
      return Effect.die(new TypeError(`endpoint must be a string, got ${typeof endpoint}`))
    }
    const onRequest = state.config.onRequest
    const requestInterceptors =
      onRequest === undefined
        ? state.requestInterceptors
        : [...state.requestInterceptors, onRequest]
    const responseInterceptors = state.responseInterceptors
    return prepare(state, method, endpoint, body, options as RequestOptions<unknown, unknown>).pipe(
      Effect.flatMap(({ config, session }) =>
        Effect.map(runRequestInterceptors(requestInterceptors, config), (intercepted) =>
          dropForeignSession(state, intercepted, session)
        )
      ),
      Effect.flatMap((config) => send(state, config, options.retrySchedule)),
      Effect.map((received) =>
        toApiResponse(received.status, liftEnvelope(received.body), received.statusText)
      ),
      Effect.flatMap((response) => runResponseInterceptors(responseInterceptors, response)),
      Effect.flatMap((response) => decode(response, options.schema)),
      Effect.tap((response) => runOnResponse(state.config.onResponse, response)),
      Effect.tapError((error) => Effect.sync(() => state.report(error)))
    )
  })
