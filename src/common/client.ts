/**
 * The request program shared by the Effect API and the Promise facade, on both Effect lines:
 * prepare → interceptors → send (redirects, retry, timeout) over a transport → read → envelope →
 * response interceptors → decode. Written against the part of Effect's API both lines spell the
 * same; what a line spells its own way (its clock, timeouts, callbacks, schedules, schema decoder
 * and spans) comes with the client's state: its line's dialect (`common/dialect.ts`).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import type { ApiFailure, ApiResponse, ApiSuccess, ResponseMeta } from "../core/ApiResponse.js"
import { whenAborted } from "../core/abort.js"
import { encodeBody, type WireBody } from "../core/body.js"
import type { ConfigOf, RequestOptionsOf } from "../core/config.js"
import { describe, isRecord, messageOf } from "../core/describe.js"
import {
  assignHeaders,
  CREDENTIAL_HEADERS,
  checkHeader,
  type HeaderRecord
} from "../core/headers.js"
import { DEFAULT_SESSION_HEADER, type HttpMethod } from "../core/http.js"
import {
  checkConfig,
  checkRequest,
  configTimeoutMillis,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RETRY_ATTEMPTS,
  DEFAULT_TIMEOUT_MILLIS,
  type InvalidArgument,
  isAbortSignal,
  readingOptions,
  timeoutMillis
} from "../core/options.js"
import { guardedProgress, ignoreRejection, type ProgressCallback } from "../core/progress.js"
import { record } from "../core/record.js"
import type {
  RedirectMode,
  RequestConfig,
  RequestInterceptor,
  ResponseInterceptor
} from "../core/request.js"
import {
  errorText,
  liftEnvelope,
  parseBody,
  type ResponseType,
  toApiSuccess,
  UnreadableBody
} from "../core/response.js"
import { isRetryableRequest, isTransient } from "../core/retry.js"
import { isValidSessionId } from "../core/sessionId.js"
import { isStandardSchema } from "../core/standardSchema.js"
import type { Validation } from "../core/standardValidate.js"
import { type CallTrace, TRACE_HEADERS } from "../core/tracing.js"
import {
  closeAlso,
  leadsOn,
  type StreamedBody,
  type TransportFailure,
  type TransportRequest,
  type TransportResponse
} from "../core/transport.js"
import {
  absoluteUrlProblem,
  appendParams,
  isSameOrigin,
  joinUrl,
  parseBaseUrl,
  redactUrls,
  redactUrlsIn,
  urlForMessage
} from "../core/url.js"
import type { ClientDialect, RetryPlan } from "./dialect.js"
import { cancelQuietly, startTimer, type Transport } from "./exchange.js"
import { runObserver, runRequestInterceptors, runResponseInterceptors } from "./interceptors.js"
import { loadOnce, Unloaded, unloadedError } from "./loadOnce.js"
import {
  AbortedError,
  DecodeError,
  HttpError,
  InvalidRequestError,
  NetworkError,
  ResponseTooLargeError,
  type SvcError,
  TimeoutError
} from "./SvcError.js"
import {
  checkSessionId,
  forgetSession,
  knownSession,
  makeSessionState,
  persistSession,
  rememberSession,
  resolveSession,
  type SessionState,
  unpersistSession
} from "./session.js"
import { UndecodedError } from "./UndecodedError.js"

/**
 * The two faces of a client: `"effect"`, the Effect API; `"promise"`, the Promise facade.
 *
 * @since 0.1.0
 * @category models
 */
export type ClientFace = "effect" | "promise"

/** A client's config, as the program reads it (each line's `SvcConfig` is one). */
export type ClientConfig = ConfigOf<
  unknown,
  unknown,
  (failed: ApiFailure, client: never) => unknown
>

/** A request's options, as the program reads them (each line's `RequestOptions` is one). */
export type ClientRequestOptions = RequestOptionsOf<unknown, unknown, unknown>

/** What the span of a call says before it is sent. */
export interface TracedCall {
  readonly method: string
  /** The URL as the caller gave it (endpoint and params). */
  readonly url: () => string
  /** Whether its requests to the base URL's origin carry the span's trace context. */
  readonly propagate: boolean
  /** Whether the call runs the application's code, which may make spans of its own. */
  readonly nested: boolean
}

/** A call as the request program has it: its client, method, endpoint and options. */
export interface CallOf {
  readonly state: ClientState
  readonly method: HttpMethod
  readonly endpoint: string
  readonly options: ClientRequestOptions
}

/**
 * What the span of a call says before it is sent (for the lines' `traced`: only the Effect API's
 * calls are described, so a facade's bundle holds none of this).
 */
export const describeCall = ({ state, method, endpoint, options }: CallOf): TracedCall => {
  const config = state.config
  const call = record<TracedCall>()
  call.method = method
  call.url = () => appendParams(joinUrl(state.baseUrl, endpoint), options.params)
  call.propagate = config.tracerPropagation ?? true
  call.nested =
    state.requestInterceptors.length > 0 ||
    state.responseInterceptors.length > 0 ||
    config.onRequest !== undefined ||
    config.onResponse !== undefined ||
    config.onError !== undefined ||
    knownSession(state.session) === undefined
  return call
}

/**
 * The Effect API's calls: each a span around it, its duration recorded (`common/tracing.ts`).
 * Absent from a facade, which records nothing: its bundle then holds none of it.
 */
export interface CallTracing {
  readonly start: () => CallTrace
  readonly traced: <A>(
    fiber: unknown,
    trace: CallTrace,
    call: CallOf,
    program: Effect.Effect<ApiSuccess<A>, SvcError>
  ) => Effect.Effect<ApiSuccess<A>, SvcError>
}

/** A shared check's invalid argument as the client's error. */
export const invalidRequest = (invalid: InvalidArgument): InvalidRequestError =>
  new InvalidRequestError({ argument: invalid.argument, reason: invalid.reason })

/** Everything one client holds; shared by its two faces. */
export interface ClientState {
  /** What the client's Effect line spells its own way. */
  readonly line: ClientDialect
  /** The Effect API's spans and metric; `undefined` on a facade. */
  readonly tracing: CallTracing | undefined
  readonly baseUrl: string
  readonly origin: string
  readonly config: ClientConfig
  readonly headers: HeaderRecord
  readonly requestInterceptors: Array<RequestInterceptor>
  readonly responseInterceptors: Array<ResponseInterceptor>
  readonly session: SessionState
  readonly sessionHeader: string
  readonly includeSession: boolean
  readonly timeoutMillis: number
  /** The whole call's budget, retries included; `0`: none. */
  readonly totalTimeoutMillis: number
  /** The longest silence allowed while a body is read (`idleTimeout`); `0`: none. */
  readonly idleMillis: number
  readonly maxResponseBytes: number
  readonly responseType: ResponseType
  readonly redirect: RedirectMode
  /** How the client's calls retry; a call's `retrySchedule` or `retryAttempts` replaces it. */
  readonly retry: RetryPlan
  readonly report: (error: Error) => void
  /**
   * `config.refreshSession` as this face calls it (`refresh.ts`), with the client whose requests
   * never refresh; `undefined` on that client, and without `refreshSession`.
   */
  readonly refresh: ((failed: ApiFailure) => Effect.Effect<unknown, unknown>) | undefined
  /**
   * The face that runs this client's programs: the facade alone holds its fibers. A client with
   * tracing is the Effect API's.
   */
  readonly face: ClientFace
}

const safeReport =
  (onError: ClientConfig["onError"]) =>
  (error: Error): void => {
    if (onError === undefined) return
    try {
      ignoreRejection(onError(error))
    } catch {
      // a throwing onError must not change the outcome
    }
  }

/** A `retrySchedule` (which wins) or a number of `retryAttempts` as a plan; neither, none. */
const retryPlanOf = (schedule: unknown, attempts: number | undefined): RetryPlan | undefined =>
  schedule !== undefined ? { schedule } : attempts === undefined ? undefined : { attempts }

/** Validates `baseUrl` and `config` and builds the state of a client. */
export const makeState = (
  line: ClientDialect,
  tracing: CallTracing | undefined,
  baseUrl: string,
  config: ClientConfig = {}
): ClientState => {
  const url = parseBaseUrl(baseUrl)
  checkConfig(line, config)
  const report = safeReport(config.onError)
  return {
    line,
    tracing,
    // what the URL parser strips, endpoints joined after it would keep (a space before a path)
    baseUrl: baseUrl.trim(),
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
        : configTimeoutMillis(line, config.timeout, "timeout"),
    totalTimeoutMillis:
      config.totalTimeout === undefined
        ? 0
        : configTimeoutMillis(line, config.totalTimeout, "totalTimeout"),
    idleMillis:
      config.idleTimeout === undefined
        ? 0
        : configTimeoutMillis(line, config.idleTimeout, "idleTimeout"),
    maxResponseBytes: config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    responseType: config.responseType ?? "auto",
    redirect: config.redirect ?? "follow",
    retry: retryPlanOf(config.retrySchedule, config.retryAttempts) ?? {
      attempts: DEFAULT_RETRY_ATTEMPTS
    },
    report,
    refresh: undefined,
    face: tracing === undefined ? "promise" : "effect"
  }
}

/** Exactly the base URL's origin; the prefix test is a fast path that only ever says yes rightly. */
const sameOrigin = (state: ClientState, url: string): boolean =>
  (url.startsWith(state.origin) && url[state.origin.length] === "/") ||
  isSameOrigin(url, state.origin)

/**
 * The config the hooks handed back (request interceptors; `onRequest`, which may have written into
 * it), made ready to send: an absolute http(s) URL; a method in upper case (ky's reading of `put`,
 * and the retry and redirect rules'), and no body with GET or HEAD (fetch refuses one, undici
 * would send it); header names in lower case (a later spelling of a name wins), checked like the
 * caller's own, `undefined` and `null` values left out; a timeout and signal it set, checked. A
 * config that cannot be read (a getter or Proxy that throws) is refused too. (Where the session
 * and credentials may go is decided when the request is sent, whoever set them.)
 */
const finalConfig = (
  line: ClientDialect,
  config: RequestConfig
): Effect.Effect<RequestConfig, InvalidRequestError> => {
  const refused = (argument: string, problem: string) =>
    Effect.fail(
      new InvalidRequestError({
        argument: `RequestConfig${argument}`,
        reason: `(from an interceptor or onRequest) ${problem}`
      })
    )
  try {
    // each field read once, and what is sent is what was checked (a getter may answer otherwise
    // the next time, or live on a prototype that a copy leaves behind)
    const { url, method: given, body, headers: written, signal } = config
    const problem =
      typeof url === "string" ? absoluteUrlProblem(url) : `must be a string, got ${describe(url)}`
    if (problem !== undefined) return refused(".url", problem)
    if (typeof given !== "string") {
      return refused(".method", `must be a string, got ${describe(given)}`)
    }
    const method = given.toUpperCase() as HttpMethod
    if ((method === "GET" || method === "HEAD") && body !== undefined) {
      return refused(".body", `must be absent from a ${method} request`)
    }
    if (!isRecord(written)) {
      return refused(".headers", `must be an object, got ${describe(written)}`)
    }
    const headers: HeaderRecord = {}
    for (const name of Object.keys(written)) {
      const value = written[name]
      if (value === undefined || value === null) continue
      try {
        checkHeader(name, value)
      } catch (cause) {
        return refused(".headers", `are invalid: ${(cause as Error).message}`)
      }
      headers[name.toLowerCase()] = value as string
    }
    let timeout = config.timeout
    if (timeout !== undefined) {
      const checked = timeoutMillis(line, timeout)
      if (typeof checked === "string") return refused(".timeout", checked)
      timeout = checked
    }
    if (signal !== undefined && !isAbortSignal(signal)) {
      return refused(".signal", `must be an AbortSignal, got ${describe(signal)}`)
    }
    // the config's own fields go on (an interceptor's note for a response interceptor); what was
    // checked replaces what the copy read again
    return Effect.succeed({
      ...config,
      url,
      method,
      headers,
      body,
      timeout,
      signal
    } as RequestConfig)
  } catch (cause) {
    return refused("", `could not be read: ${messageOf(cause)}`)
  }
}

/**
 * The request config before interceptors: URL, merged headers, session, timeout, signal. The
 * session id it adds is put in `carried`, when given.
 */
const prepare = (
  state: ClientState,
  method: HttpMethod,
  endpoint: string,
  body: unknown,
  options: ClientRequestOptions,
  timeout: number,
  carried: { id: Redacted.Redacted<string> | undefined } | undefined
): Effect.Effect<RequestConfig, TimeoutError> => {
  const url = appendParams(joinUrl(state.baseUrl, endpoint), options.params)
  // the request's own headers, by lower-case name (the session's name is lower-case)
  const own =
    options.headers === undefined
      ? undefined
      : assignHeaders(record<HeaderRecord>(), options.headers)
  const headers = assignHeaders(assignHeaders(record<HeaderRecord>(), state.headers), own)
  const config = record<RequestConfig>()
  config.method = method
  config.url = url
  config.headers = headers
  config.timeout = timeout
  if (body !== undefined) config.body = body
  if (options.signal !== undefined) config.signal = options.signal
  const include = options.includeSession ?? state.includeSession
  // a per-request header of its name stands in for the session; a default one does not (4.3)
  if (
    !include ||
    (own !== undefined && Object.hasOwn(own, state.sessionHeader)) ||
    !sameOrigin(state, url)
  ) {
    return Effect.succeed(config)
  }
  const attach = (id: Redacted.Redacted<string> | undefined): RequestConfig => {
    if (id !== undefined) {
      headers[state.sessionHeader] = Redacted.value(id)
      if (carried !== undefined) carried.id = id
    }
    return config
  }
  const known = knownSession(state.session)
  if (known !== undefined) return Effect.succeed(attach(known.id))
  // the lookup runs the application's code (getSessionId, storage): it may take time
  return Effect.map(
    withTimeout(
      state.line,
      resolveSession(state.session),
      timeout,
      () => config,
      "the session lookup"
    ),
    attach
  )
}

/** What a body that stalled past `idleTimeout` was waited for, in its `TimeoutError`. */
export const IDLE_BODY = "the body's next bytes (idleTimeout)"

/** The error of a hop's failure; a timeout names the try's first request, as the caller made it. */
const failureOf = (
  failure: TransportFailure,
  request: TransportRequest,
  first: TransportRequest,
  timeoutMillis: number
): NetworkError | TimeoutError | ResponseTooLargeError => {
  switch (failure._tag) {
    case "TimedOut":
      return new TimeoutError({
        timeoutMillis: failure.idleMillis ?? timeoutMillis,
        ...(failure.idleMillis !== undefined && { waitingFor: IDLE_BODY }),
        method: first.method,
        url: urlForMessage(first.url)
      })
    case "TooLarge":
      return new ResponseTooLargeError({
        maxResponseBytes: request.maxResponseBytes,
        status: failure.status
      })
    case "Failed":
      return new NetworkError({
        // a transport's own text may quote the URL: cut to what a message may name
        reason: `request failed (${redactUrls(failure.reason)})`,
        method: request.method,
        url: urlForMessage(request.url),
        cause: redactUrlsIn(failure.cause),
        ...(failure.permanent && { permanent: true })
      })
  }
}

/** The redirect rules (redirect.ts), loaded by the first response that may be a redirect. */
const redirects = /*#__PURE__*/ loadOnce(
  () =>
    import("../core/redirect.js").then((loaded) =>
      loaded.redirectRules({ credentialHeaders: CREDENTIAL_HEADERS, traceHeaders: TRACE_HEADERS })
    ),
  "redirects"
)

/**
 * The standard reason phrases (reasonPhrases.ts), loaded by the first failure whose transport gave
 * none (a browser's fetch over HTTP/2, the `HttpClient` adapter).
 */
const reasonPhrases = /*#__PURE__*/ loadOnce(() => import("../core/reasonPhrases.js"), "reasons")

/**
 * `status`'s reason phrase for a failure's message: `given` (the server's), else the standard one —
 * or none, when its table could not be loaded: a failure's message is no reason to fail otherwise.
 */
const reasonOf = (status: number, given: string): Effect.Effect<string | undefined> =>
  given
    ? Effect.succeed(given)
    : Effect.match(reasonPhrases, {
        onFailure: () => undefined,
        onSuccess: (loaded) => loaded.STATUS_TEXT[status]
      })

/**
 * Sends a request, following redirects itself (up to {@link MAX_REDIRECTS} hops, each hop's origin
 * checked), unless `redirect` is `"manual"`: then a 3xx is the answer, `Location` in its headers.
 * Every hop has the try's deadline. The answer goes to `read`, in the same step as the exchange's
 * outcome.
 */
const follow = <A>(
  state: ClientState,
  transport: Transport,
  first: TransportRequest,
  settings: SendSettings,
  read: (response: TransportResponse) => Effect.Effect<A, SvcError>
): Effect.Effect<A, SvcError> => {
  const fail = (failure: TransportFailure, request: TransportRequest) =>
    Effect.fail(failureOf(failure, request, first, settings.timeoutMillis))
  const hop = (request: TransportRequest, hops: number): Effect.Effect<A, SvcError> =>
    Effect.matchEffect(sendHop(transport, settings, request, hops), {
      onFailure: (failure) => fail(failure, request),
      onSuccess: (response) => followed(request, hops, response)
    })
  // what a response leads to: itself, or the next hop of a redirect (the rules load with the
  // first response that may be one)
  const followed = (
    request: TransportRequest,
    hops: number,
    response: TransportResponse
  ): Effect.Effect<A, SvcError> => {
    if (!leadsOn(request, response, settings.redirect)) {
      if (settings.answered !== undefined) settings.answered.url = request.url
      return read(response)
    }
    return Effect.matchEffect(redirects, {
      onFailure: (unloaded) => Effect.fail(unloadedError(unloaded)),
      onSuccess: ({ nextStep }) => {
        const step = nextStep(state, request, response, hops)
        return step._tag === "Hop"
          ? hop(step.request, hops + 1)
          : Effect.fail(
              new NetworkError({
                reason: step.reason,
                method: request.method,
                url: urlForMessage(request.url),
                permanent: true
              })
            )
      }
    })
  }
  return hop(first, 0)
}

/**
 * One try: send (following redirects), read the body, lift its envelope; a non-2xx fails with
 * `HttpError`. One deadline, `timeoutMillis` from the try's start on the fiber's `Clock`, bounds
 * the try, every redirect hop of it included.
 */
const attempt = (
  state: ClientState,
  transport: Transport,
  request: TransportRequest,
  settings: SendSettings
): Effect.Effect<ApiSuccess<unknown>, SvcError> =>
  settings.timeoutMillis > 0
    ? Effect.clockWith((clock) =>
        tryOnce(
          state,
          transport,
          { ...request, deadline: state.line.now(clock) + settings.timeoutMillis },
          settings
        )
      )
    : tryOnce(state, transport, request, settings)

const tryOnce = (
  state: ClientState,
  transport: Transport,
  request: TransportRequest,
  settings: SendSettings
): Effect.Effect<ApiSuccess<unknown>, SvcError> =>
  follow(
    state,
    transport,
    request,
    settings,
    (response): Effect.Effect<ApiSuccess<unknown>, SvcError> => {
      const status = response.status
      const headers = response.headers
      // a 2xx body a stream reads as it arrives: no envelope, nothing parsed; its progress is
      // metered as the caller reads it (by the stream programs)
      if (response.stream !== undefined) {
        const data =
          settings.streamed?.metered?.(response.stream, status, headers) ?? response.stream
        return Effect.succeed({ success: true, status, data, headers })
      }
      const body = parseBody(
        response.body,
        status,
        request.method,
        headers["content-type"],
        settings.responseType
      )
      if (status >= 200 && status < 300) {
        return body instanceof UnreadableBody
          ? Effect.fail(
              new UndecodedError({
                status,
                body: body.text,
                detail: `the body is not JSON: ${body.detail}`,
                headers
              })
            )
          : Effect.succeed(toApiSuccess(status, liftEnvelope(body), headers))
      }
      // a failure is its status's, whatever its body: one that is not the JSON asked for is text
      const failed = body instanceof UnreadableBody ? body.text : body
      const lifted = liftEnvelope(failed)
      return Effect.flatMap(
        (lifted.error ?? lifted.message)
          ? Effect.succeed(undefined)
          : reasonOf(status, response.statusText),
        (statusText) =>
          Effect.fail(
            new HttpError({
              status,
              error: errorText(lifted, status, statusText),
              body: failed,
              headers
            })
          )
      )
    }
  )

/** The request a message names: its method and URL. */
interface Target {
  readonly method: string
  readonly url: string
}

/**
 * `effect` on a fiber of its own (with the caller's services), ended by what `arm` sets up — the
 * caller's signal, the call's total deadline — with the failure it stops it with. One fork and an
 * observer: Effect's race and timeout fork two fibers, some 33 µs a request on Effect 3
 * (measured). Interrupting the caller interrupts it.
 */
const endedBy = <A, E, F>(
  line: ClientDialect,
  effect: Effect.Effect<A, E>,
  arm: (stop: (failure: F) => void) => () => void
): Effect.Effect<A, E | F> =>
  Effect.flatMap(line.forkInContext(effect), (start) =>
    line.callback<A, E | F>((resume) => {
      const fiber = start()
      let ended = false
      let disarm: (() => void) | undefined
      const end = () => {
        ended = true
        disarm?.()
      }
      fiber.addObserver((exit) => {
        if (ended) return
        end()
        resume(exit)
      })
      if (ended) return
      disarm = arm((failure) => {
        if (ended) return
        end()
        line.interrupt(fiber)
        resume(Effect.fail(failure))
      })
      return Effect.sync(() => {
        end()
        line.interrupt(fiber)
      })
    })
  )

/**
 * `effect`, failed with `onTime()`'s failure (and interrupted) once `millis` have passed on the
 * fiber's clock.
 */
export const within = <A, E, F>(
  line: ClientDialect,
  effect: Effect.Effect<A, E>,
  millis: number,
  onTime: () => F
): Effect.Effect<A, E | F> =>
  Effect.clockWith((clock) =>
    endedBy(line, effect, (stop: (failure: F) => void) =>
      startTimer(line, clock, millis, () => stop(onTime()))
    )
  )

/**
 * How the facade ends a call it runs (facade.ts): `end` interrupts the call's fiber at once and,
 * once the turn that ended it is over, answers the failure (reported); `disarms` stop what watches
 * the call, called once the call has its outcome (`closeEnder`) or its fiber has ended.
 */
export interface CallEnder {
  readonly end: (failure: SvcError) => void
  readonly disarms: Array<() => void>
  /** Whether `end` has been called. */
  readonly ended: boolean
}

/** Stops what watches the call: its outcome is in (an `onError` that aborts the signal is late). */
export const closeEnder = (ender: CallEnder): void => {
  for (const disarm of ender.disarms.splice(0)) disarm()
}

/**
 * {@link endedBy} for what ends a whole call (its signal, its total limit): with the facade's
 * `ender`, `arm` stops the call through it, and nothing is forked; without one (the Effect API,
 * whose caller's fiber is not ours to interrupt; an `sse` stream's reconnection), through a fork.
 */
const endingCall = <A, E, F extends SvcError>(
  line: ClientDialect,
  ender: CallEnder | undefined,
  effect: Effect.Effect<A, E>,
  arm: (stop: (failure: F) => void) => () => void
): Effect.Effect<A, E | F> =>
  ender === undefined
    ? endedBy(line, effect, arm)
    : Effect.suspend(() => {
        ender.disarms.push(arm(ender.end))
        return effect
      })

/**
 * Fails with `TimeoutError` when `effect` takes longer than `timeoutMillis` (`0`: no limit): the
 * whole call (`total`), a piece of the application's code (`waitingFor`) or a session lookup. On
 * the fiber's `Clock`, so `TestClock` drives it. (A try is bounded by its deadline, which the
 * transport's exchange enforces.) `ender`: the facade's, when it ends the whole call (see
 * {@link endingCall}).
 */
const withTimeout = <A, E>(
  line: ClientDialect,
  effect: Effect.Effect<A, E>,
  timeoutMillis: number,
  target: () => Target,
  waitingFor?: string,
  total?: boolean,
  ender?: CallEnder
): Effect.Effect<A, E | TimeoutError> =>
  timeoutMillis > 0
    ? Effect.clockWith((clock) =>
        endingCall(line, ender, effect, (stop: (failure: TimeoutError) => void) =>
          startTimer(line, clock, timeoutMillis, () =>
            stop(
              new TimeoutError({
                timeoutMillis,
                method: target().method,
                url: urlForMessage(target().url),
                ...(waitingFor === undefined ? {} : { waitingFor }),
                ...(total ? { total } : {})
              })
            )
          )
        )
      )
    : effect

/**
 * `effect`, ended at once with `AbortedError` when `signal` aborts. It first lets the caller's turn
 * end: a signal aborted in the same tick as the call (`get(url, { signal }); controller.abort()`)
 * ends the request before anything is sent, on every transport, as with ky. `ender`: the
 * facade's, when it ends the whole call (see {@link endingCall}).
 */
const withSignal = <A, E>(
  line: ClientDialect,
  effect: Effect.Effect<A, E>,
  signal: AbortSignal | undefined,
  ender?: CallEnder
): Effect.Effect<A, E | AbortedError> => {
  if (signal === undefined) return effect
  return Effect.flatMap(line.yieldNow, () =>
    signal.aborted
      ? Effect.fail(new AbortedError({ cause: signal.reason }))
      : endingCall(line, ender, effect, (stop: (failure: AbortedError) => void) =>
          whenAborted(signal, () => stop(new AbortedError({ cause: signal.reason })))
        )
  )
}

/**
 * A call's total limit in milliseconds: its own `totalTimeout`, else the client's; `0` for none,
 * and for a value the request will refuse (INVALID_REQUEST).
 */
export const totalMillisOf = (
  state: ClientState,
  options: { readonly totalTimeout?: unknown } | undefined
): number => {
  const given =
    options?.totalTimeout === undefined
      ? state.totalTimeoutMillis
      : timeoutMillis(state.line, options.totalTimeout)
  return typeof given === "number" ? given : 0
}

/**
 * `effect`, what a call waits for before its request (code loaded on its first use), ended by the
 * call's signal and its total limit as its request would be. A signal or a limit the request will
 * refuse bounds nothing here: the request then says what is wrong with it. It watches them on a
 * fiber of its own, not through the facade's ender: its watch ends with `effect`, before anything
 * after it reports (an `onError` that aborts the signal is late).
 */
export const beforeRequest = <A, E>(
  state: ClientState,
  effect: Effect.Effect<A, E>,
  method: string,
  endpoint: unknown,
  options: { readonly signal?: unknown; readonly totalTimeout?: unknown } | undefined
): Effect.Effect<A, E | AbortedError | TimeoutError> =>
  withSignal(
    state.line,
    withTimeout(
      state.line,
      effect,
      totalMillisOf(state, options),
      () => ({ method, url: joinUrl(state.baseUrl, typeof endpoint === "string" ? endpoint : "") }),
      undefined,
      true
    ),
    isAbortSignal(options?.signal) ? options.signal : undefined
  )

/**
 * Retries transient failures on the plan's schedule, honouring `Retry-After`. The retry machinery
 * is only built (and on Effect 4 loaded) after a first transient failure, whose error is fed to the
 * schedule without sending again.
 */
const retryAfterFirstFailure = <A>(
  line: ClientDialect,
  once: Effect.Effect<A, SvcError>,
  plan: RetryPlan
): Effect.Effect<A, SvcError> =>
  Effect.catchIf(once, isTransient, (first) => {
    let pending: SvcError | undefined = first
    const next = Effect.suspend(() => {
      if (pending === undefined) return once
      const error = pending
      pending = undefined
      return Effect.fail(error)
    })
    return line.retry(next, plan)
  })

/** How one request is sent and read. */
interface SendSettings {
  readonly redirect: RedirectMode
  readonly responseType: ResponseType
  /** Each try's deadline, every redirect hop included; `0`: none. */
  readonly timeoutMillis: number
  /** The longest silence allowed while a body is read whole; `0`: none. */
  readonly idleMillis: number
  /** Whether anything but the request itself may interrupt its fiber (see `exchange`). */
  readonly interruptible: boolean
  /** The call's record of its sends, for its span (the Effect API only). */
  readonly trace: CallTrace | undefined
  /** Where the answer came from (its last hop's URL), for a client that refreshes its session. */
  readonly answered: { url: string } | undefined
  /** `onDownloadProgress` for the bodies the transport reads, silenced once the call ends. */
  readonly onDownloadProgress: ProgressCallback | undefined
  /** `onUploadProgress`, silenced once the call ends. */
  readonly onUploadProgress: ProgressCallback | undefined
  /**
   * How to close a streamed 2xx body once it has come (`stream`, `sse`), the caller's, shared by
   * the call's tries: closed if the call does not hand the body over.
   */
  readonly streamed: StreamedBody | undefined
}

/** Sends a hop; the Effect API's call counts it (a re-send is an event of its span). */
const sendHop = (
  transport: Transport,
  settings: SendSettings,
  request: TransportRequest,
  hops: number
) => {
  const trace = settings.trace
  if (trace === undefined) return transport(request, settings.interruptible)
  return Effect.suspend(() => {
    trace.send(request, hops > 0 ? "redirect" : "retry")
    return transport(request, settings.interruptible)
  })
}

/** The caller's body as it goes on the wire. */
const wireBody = (body: unknown): Effect.Effect<WireBody, InvalidRequestError> => {
  const wire = encodeBody(body)
  return wire instanceof Promise
    ? Effect.flatMap(
        Effect.promise(() => wire),
        checkedWire
      )
    : checkedWire(wire)
}

const checkedWire = (
  wire: WireBody | InvalidArgument
): Effect.Effect<WireBody, InvalidRequestError> =>
  "_tag" in wire ? Effect.fail(invalidRequest(wire)) : Effect.succeed(wire)

/** The default request headers (SPEC 4.3.12); the caller's and the client's win. */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: "application/json, text/plain, */*",
  // not deflate: the fetch of Deno and workerd hands it over undecoded (SPEC 4.3.7)
  "accept-encoding": "gzip, br"
}

/**
 * Sends a final config: body encoded, credentials only to the base URL's origin, retry on
 * transient failures; the caller's signal aborts.
 */
const send = (
  state: ClientState,
  transport: Transport,
  config: RequestConfig,
  settings: SendSettings,
  retry: RetryPlan | undefined,
  callerSignal: AbortSignal | undefined
): Effect.Effect<ApiSuccess<unknown>, SvcError> =>
  Effect.flatMap(wireBody(config.body), (wire) => {
    const headers: Record<string, string> = { ...DEFAULT_HEADERS, ...config.headers }
    // no `Host`: the URL names the host whose origin rules were checked, as fetch has it
    delete headers.host
    if (wire.contentType !== undefined && headers["content-type"] === undefined) {
      headers["content-type"] = wire.contentType
    }
    const home = sameOrigin(state, config.url)
    // the trace context of the call's span, to the base URL's origin only
    const trace = settings.trace?.headers
    if (home && trace !== undefined) Object.assign(headers, trace)
    // wherever they were set (config, setHeader, per request, an interceptor)
    if (!home) {
      delete headers[state.sessionHeader]
      for (const name of CREDENTIAL_HEADERS) delete headers[name]
    }
    const request: TransportRequest = {
      method: config.method,
      url: config.url,
      headers,
      body: wire.body,
      deadline: undefined,
      maxResponseBytes: state.maxResponseBytes,
      idleMillis: settings.idleMillis,
      followRedirects: settings.redirect === "follow",
      followHiddenRedirects: false,
      propagateTrace: home,
      secretHeaders: Array.of(state.sessionHeader),
      streamed: settings.streamed,
      onDownloadProgress: settings.onDownloadProgress,
      onUploadProgress: settings.onUploadProgress
    }
    const once = attempt(state, transport, request, {
      ...settings,
      timeoutMillis: config.timeout ?? settings.timeoutMillis,
      // a signal an interceptor set interrupts the exchange too
      interruptible: settings.interruptible || config.signal !== undefined
    })
    // the caller's signal governs the whole request; one an interceptor set governs the exchange
    const signal = config.signal === callerSignal ? undefined : config.signal
    const retried = isRetryableRequest(config.method, config.headers)
      ? retryAfterFirstFailure(state.line, once, retry ?? state.retry)
      : once
    return withSignal(state.line, retried, signal)
  })

/** Session refresh (refresh.ts), loaded by the first 401 a refresh may answer. */
const refreshes = /*#__PURE__*/ loadOnce(
  () =>
    import("./refresh.js").then((loaded) =>
      loaded.makeRefresh({
        Effect: {
          as: Effect.as,
          exit: Effect.exit,
          fail: Effect.fail,
          flatMap: Effect.flatMap,
          interruptible: Effect.interruptible,
          map: Effect.map,
          succeed: Effect.succeed,
          suspend: Effect.suspend,
          sync: Effect.sync,
          uninterruptible: Effect.uninterruptible
        },
        isSuccess: Exit.isSuccess,
        squash: Cause.squash,
        Redacted: { isRedacted: Redacted.isRedacted, make: Redacted.make, value: Redacted.value },
        isValidSessionId,
        within,
        forgetSession,
        persistSession,
        rememberSession,
        unpersistSession
      })
    ),
  "session refresh"
)

/** Standard Schema decoding, loaded by the first request that passes such a validator. */
const standard = /*#__PURE__*/ loadOnce(
  () => import("../core/standardValidate.js"),
  "Standard Schema validation"
)

/**
 * Decodes `data` of a success with an `effect/Schema` or a Standard Schema validator: `data` is then
 * the schema's output. Without a schema, `A` is the caller's word for what the server sends.
 */
export const decode = <A>(
  line: ClientDialect,
  response: ApiSuccess<unknown>,
  schema: unknown
): Effect.Effect<ApiSuccess<A>, DecodeError> => {
  if (schema === undefined) return Effect.succeed(response as ApiSuccess<A>)
  // a schema's verdict, or (`Unloaded`) no verdict: its decoder could not be loaded
  const failed = (failure: { readonly message: string; readonly cause: unknown }) =>
    new (failure instanceof Unloaded ? UndecodedError : DecodeError)({
      status: response.status,
      body: response.data,
      detail: failure.message,
      cause: failure.cause,
      ...(response.headers === undefined ? {} : { headers: response.headers })
    })
  if (isStandardSchema(schema)) {
    const settled = (validation: Validation): Effect.Effect<ApiSuccess<A>, DecodeError> =>
      "value" in validation
        ? Effect.succeed({ ...response, data: validation.value as A })
        : Effect.fail(failed({ message: validation.problem, cause: validation.cause }))
    return Effect.flatMap(Effect.mapError(standard, failed), ({ validateStandard }) =>
      Effect.suspend(() => {
        const validation = validateStandard(schema, line.decodable(response.data), messageOf)
        return validation instanceof Promise
          ? Effect.flatMap(
              Effect.promise(() => validation),
              settled
            )
          : settled(validation)
      })
    )
  }
  return line.decodeSchema(schema, line.decodable(response.data)).pipe(
    Effect.map((data): ApiSuccess<A> => ({ ...response, data: data as A })),
    Effect.mapError(failed)
  )
}

/** The `ApiResponse` of an HTTP failure: what interceptors, `onResponse` and the facade see. */
export const fromHttpError = (error: HttpError): ApiFailure => {
  const lifted = liftEnvelope(error.body)
  const response: {
    success: false
    status: number
    error: string
    code: "HTTP_ERROR"
    data?: unknown
    message?: string
    meta?: ResponseMeta
    headers: Readonly<Record<string, string>>
  } = {
    success: false,
    status: error.status,
    error: error.error,
    code: "HTTP_ERROR",
    headers: error.headers
  }
  if (lifted.data !== undefined) response.data = lifted.data
  if (lifted.message !== undefined) response.message = lifted.message
  if (lifted.meta !== undefined) response.meta = lifted.meta
  return response
}

/**
 * A failure response, after the interceptors, as the Effect API's `HttpError`: the server's own
 * when the interceptors handed it back untouched, else one with the returned failure's `status`,
 * `error`, `data` (as `body`) and `headers`.
 */
const toHttpError = (
  response: ApiFailure,
  received: { readonly response: ApiFailure; readonly error: HttpError } | undefined
): Effect.Effect<never, HttpError> =>
  received !== undefined && received.response === response
    ? Effect.fail(received.error)
    : Effect.flatMap(
        // an interceptor written in JavaScript may leave `error` out: the message is never empty
        response.error ? Effect.succeed(undefined) : reasonOf(response.status, ""),
        (statusText) =>
          Effect.fail(
            new HttpError({
              status: response.status,
              error: response.error || errorText({}, response.status, statusText),
              body: response.data,
              headers: response.headers ?? {}
            })
          )
      )

/**
 * The whole request: check, prepare, interceptors, `onRequest`, send (retry, timeout), envelope,
 * response interceptors, decode, `onResponse`. The caller's signal aborts every phase; the timeout
 * bounds each try and every piece of the application's code the request waits on. With
 * `streamed` (`stream`, `sse`: the caller's, told how to close the body), a 2xx answers once its
 * headers are in, `data` its body as a web `ReadableStream` (no envelope, no schema: a stream's
 * events are decoded one by one). `ender`: the facade's, which ends the call when its signal aborts
 * or its total limit passes.
 */
export const request = <A>(
  state: ClientState,
  transport: Transport,
  method: HttpMethod,
  endpoint: string,
  body: unknown,
  options: ClientRequestOptions = {},
  streamed?: StreamedBody,
  ender?: CallEnder
): Effect.Effect<ApiSuccess<A>, SvcError> =>
  state.line.withFiber((fiber) => {
    const streaming = streamed !== undefined
    const line = state.line
    const checked = readingOptions(() => checkRequest(line, endpoint, options, state))
    if ("_tag" in checked) {
      const error = invalidRequest(checked)
      state.report(error)
      return Effect.fail(error)
    }
    const { timeoutMillis: timeout, totalTimeoutMillis, idleMillis, retryAttempts } = checked
    const retry = retryPlanOf(options.retrySchedule, retryAttempts)
    let received: { response: ApiFailure; error: HttpError } | undefined
    // a request's progress callback replaces the client's (as in ky and axios)
    const onDownload = options.onDownloadProgress ?? state.config.onDownloadProgress
    const download = guardedProgress(onDownload)
    const upload = guardedProgress(options.onUploadProgress ?? state.config.onUploadProgress)
    // the request's records are filled field by field, never written as literals (core/record.ts)
    const settings = record<SendSettings>()
    settings.redirect = options.redirect ?? state.redirect
    settings.responseType = options.responseType ?? state.responseType
    settings.timeoutMillis = timeout
    settings.idleMillis = idleMillis
    // the facade's fiber is interrupted only by the caller's signal or the whole call's limit (and
    // a stream's, which its close and cancel end)
    settings.interruptible =
      state.face === "effect" || options.signal !== undefined || totalTimeoutMillis > 0 || streaming
    // the facade records nothing
    settings.trace = state.tracing?.start()
    settings.answered = state.refresh === undefined ? undefined : { url: "" }
    settings.onDownloadProgress = download.callback
    settings.onUploadProgress = upload.callback
    settings.streamed = streamed
    // what the message of a timeout names: the request as the caller made it
    const target = (): Target => ({ method, url: joinUrl(state.baseUrl, endpoint) })
    // a piece of the application's code the request waits on, under the timeout
    const bounded = <B, E>(effect: Effect.Effect<B, E>, waitingFor: string) =>
      withTimeout(line, effect, timeout, target, waitingFor)
    const { onRequest, onResponse, onError } = state.config
    const requestInterceptors = state.requestInterceptors
    const responseInterceptors = state.responseInterceptors
    // the session id the request carries, for a client that refreshes its session
    const carried = state.refresh === undefined ? undefined : { id: undefined }
    const prepared = prepare(state, method, endpoint, body, options, timeout, carried)
    // without interceptors the config is the client's own, its headers checked already
    const intercepted =
      requestInterceptors.length === 0
        ? prepared
        : Effect.flatMap(prepared, (config) =>
            Effect.flatMap(
              runRequestInterceptors(requestInterceptors, config, (effect) =>
                bounded(effect, "the request interceptors")
              ),
              (config) => finalConfig(line, config)
            )
          )
    const ready =
      onRequest === undefined
        ? intercepted
        : Effect.flatMap(intercepted, (config) =>
            Effect.flatMap(
              runObserver("request", onRequest, config, (effect) => bounded(effect, "onRequest")),
              // it may have written into the config (a header in any case, `X-Session-Id`; a URL):
              // checked again, and header names in lower case, as the origin rules read them
              () => finalConfig(line, config)
            )
          )
    const sentOnce = (config: RequestConfig) =>
      send(state, transport, config, settings, retry, options.signal)
    // a 401 for the client's session: sent once more after a refresh (refresh.ts)
    const sent =
      carried === undefined
        ? sentOnce
        : (config: RequestConfig) =>
            Effect.catchIf(
              sentOnce(config),
              (error): error is HttpError =>
                error._tag === "HttpError" &&
                error.status === 401 &&
                answersSession(state, config, carried.id, settings.answered),
              (error) =>
                Effect.flatMap(Effect.mapError(refreshes, unloadedError), ({ afterExpiry }) =>
                  afterExpiry(state, {
                    sent: carried.id!,
                    error,
                    failed: fromHttpError(error),
                    timeoutMillis: timeout,
                    current: bounded(resolveSession(state.session), "the session lookup"),
                    resend: (id) =>
                      sentOnce({
                        ...config,
                        headers: { ...config.headers, [state.sessionHeader]: Redacted.value(id) }
                      })
                  })
                )
            )
    // with no response interceptor and no onResponse, nobody sees a failure as a response: the
    // HttpError goes straight to the error channel, and a success is decoded
    const program =
      responseInterceptors.length === 0 && onResponse === undefined
        ? Effect.flatMap(ready, (config) =>
            options.schema === undefined || streaming
              ? (sent(config) as Effect.Effect<ApiSuccess<A>, SvcError>)
              : Effect.flatMap(sent(config), (response) =>
                  decode<A>(line, response, options.schema)
                )
          )
        : Effect.flatMap(ready, (config) =>
            sent(config).pipe(
              // interceptors and onResponse see every response the server gave, failures included
              Effect.catchTag("HttpError", (error) => {
                const response = fromHttpError(error)
                received = { response, error }
                return Effect.succeed<ApiResponse<unknown>>(response)
              }),
              Effect.flatMap((response) =>
                responseInterceptors.length === 0
                  ? Effect.succeed(response)
                  : Effect.map(
                      runResponseInterceptors(responseInterceptors, response, config, (effect) =>
                        bounded(effect, "the response interceptors")
                      ),
                      (answer) => {
                        // a stream put in place of a streamed body may read it: closed too
                        const data = answer.data
                        if (streamed !== undefined && data instanceof ReadableStream)
                          closeAlso(streamed, () => cancelQuietly(data))
                        return answer
                      }
                    )
              ),
              // what the last response interceptor returned: a success is decoded, a failure
              // stays one
              Effect.flatMap(
                (response): Effect.Effect<ApiResponse<A>, DecodeError> =>
                  response.success
                    ? decode<A>(line, response, streaming ? undefined : options.schema)
                    : Effect.succeed(response as ApiResponse<A>)
              ),
              Effect.tap((response) =>
                onResponse === undefined
                  ? Effect.void
                  : runObserver("response", onResponse, response, (effect) =>
                      bounded(effect, "onResponse")
                    )
              ),
              // the success channel carries only successes: a failure, even one an interceptor
              // made of a 2xx, is an HttpError
              Effect.flatMap(
                (response): Effect.Effect<ApiSuccess<A>, HttpError> =>
                  response.success ? Effect.succeed(response) : toHttpError(response, received)
              )
            )
          )
    // the caller's signal and the total limit end the whole call (the facade's ender, if any)
    const limited = withSignal(
      line,
      withTimeout(line, program, totalTimeoutMillis, target, undefined, true, ender),
      options.signal,
      ender
    )
    const signalled =
      ender === undefined || (options.signal === undefined && totalTimeoutMillis <= 0)
        ? limited
        : Effect.matchCauseEffect(limited, {
            onFailure: (cause) => {
              closeEnder(ender)
              return Effect.failCause(cause)
            },
            onSuccess: (value) => {
              closeEnder(ender)
              return Effect.succeed(value)
            }
          })
    // a call its ender has ended is reported as it was ended, not as it then failed
    const observed =
      onError === undefined
        ? signalled
        : Effect.tapError(signalled, (error) =>
            Effect.sync(() => {
              if (ender?.ended !== true) state.report(error)
            })
          )
    // no progress is told once the call has ended, however it ended
    const reported =
      download.callback === undefined && upload.callback === undefined
        ? observed
        : Effect.ensuring(
            observed,
            Effect.sync(() => {
              download.stop()
              upload.stop()
            })
          )
    // the facade records nothing: nothing of the call's span is even described
    if (settings.trace === undefined || state.tracing === undefined) return reported
    return state.tracing.traced(
      fiber,
      settings.trace,
      { state, method, endpoint, options },
      reported
    )
  })

/**
 * Whether a response answers the client's session: the request carried the id the client added,
 * and the response came from the base URL's origin.
 */
const answersSession = (
  state: ClientState,
  config: RequestConfig,
  id: Redacted.Redacted<string> | undefined,
  answered: { readonly url: string } | undefined
): boolean =>
  id !== undefined &&
  config.headers[state.sessionHeader] === Redacted.value(id) &&
  sameOrigin(state, config.url) &&
  answered !== undefined &&
  sameOrigin(state, answered.url)

/** Header and interceptor changes, shared by both faces; they throw on bad input. */
export const setHeader = (state: ClientState, name: string, value: string): void => {
  checkHeader(name, value)
  assignHeaders(state.headers, { [name]: value })
}

export const removeHeader = (state: ClientState, name: string): void => {
  if (typeof name !== "string") throw new TypeError("header name must be a string")
  delete state.headers[name.toLowerCase()]
}

/** Adds an interceptor; anything but a function throws a `TypeError`. */
export const addInterceptor = <F>(interceptors: Array<F>, interceptor: F): void => {
  if (typeof interceptor !== "function") throw new TypeError("interceptor must be a function")
  interceptors.push(interceptor)
}

/** A session id given to `setSessionId`, checked (a bad one throws) and redacted. */
export const checkedSessionId = (
  id: string | Redacted.Redacted<string>
): Redacted.Redacted<string> =>
  Redacted.make(checkSessionId(Redacted.isRedacted(id) ? Redacted.value(id) : id))

/** The `ApiResponse` for a failure. */
export const foldError = (error: SvcError): ApiFailure => {
  switch (error._tag) {
    case "HttpError":
      return fromHttpError(error)
    case "DecodeError": {
      const failure = {
        success: false,
        status: error.status,
        error: error.message,
        code: error.code
      } as const
      return error.headers === undefined ? failure : { ...failure, headers: error.headers }
    }
    case "ResponseTooLargeError":
      // the response came, with its status; its body was too large to read
      return { success: false, status: error.status ?? 0, error: error.message, code: error.code }
    default:
      return { success: false, status: 0, error: error.message, code: error.code }
  }
}
