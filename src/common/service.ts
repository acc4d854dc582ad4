/**
 * The client's surface over a client state and a transport, written once for both faces and both
 * lines: the Effect API hands its programs back, the Promise facade (`facade.ts`) runs them.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Stream from "effect/Stream"
import type { ApiFailure, ApiResponse, ApiSuccess } from "../core/ApiResponse.js"
import { whenAborted } from "../core/abort.js"
import { describe, isRecord } from "../core/describe.js"
import type { HttpMethod } from "../core/http.js"
import { readingOptions, timeoutMillis } from "../core/options.js"
import { downloadMeter } from "../core/progress.js"
import type { RequestInterceptor, ResponseInterceptor } from "../core/request.js"
import type { EventStream, SseEvent } from "../core/sse.js"
import { fetchTransport } from "../core/transport.fetch.js"
import { closeAlso, describeCause, type StreamedBody } from "../core/transport.js"
import { joinUrl, redactUrls, redactUrlsIn, urlForMessage } from "../core/url.js"
import { QueryBuilder, type QueryResultKind } from "../Query/index.js"
import {
  addInterceptor,
  beforeRequest,
  type CallEnder,
  type ClientConfig,
  type ClientFace,
  type ClientRequestOptions,
  type ClientState,
  checkedSessionId,
  decode,
  foldError,
  IDLE_BODY,
  invalidRequest,
  removeHeader,
  request,
  setHeader,
  totalMillisOf,
  within
} from "./client.js"
import type { ClientDialect } from "./dialect.js"
import { fromSend, startTimer, type Transport } from "./exchange.js"
import { loadOnce, unloadedError } from "./loadOnce.js"
import {
  AbortedError,
  DecodeError,
  InterceptorError,
  isSvcError,
  NetworkError,
  ResponseTooLargeError,
  type SvcError,
  TimeoutError
} from "./SvcError.js"
import {
  forgetSession,
  persistSession,
  rememberSession,
  resolveSession,
  supersedeRefresh,
  unpersistSession
} from "./session.js"
import type { SseBody, StreamCallOptions } from "./streams.js"
import { UndecodedError } from "./UndecodedError.js"

export type { ClientFace }

/**
 * What a request gives on each face: an Effect that succeeds with an {@link ApiSuccess} or fails
 * with a {@link SvcError}; a promise of an {@link ApiResponse} that never rejects.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestResult<F extends ClientFace, A> = F extends "effect"
  ? Effect.Effect<ApiSuccess<A>, SvcError>
  : Promise<ApiResponse<A>>

/**
 * What `stream` gives on each face: a `Stream` of the body's chunks that sends the request when it
 * runs; a promise of an {@link ApiResponse} whose `data` is the body as a web `ReadableStream`.
 *
 * @since 0.1.0
 * @category models
 */
export type StreamResult<F extends ClientFace> = F extends "effect"
  ? Stream.Stream<Uint8Array, SvcError>
  : Promise<ApiResponse<ReadableStream<Uint8Array>>>

/**
 * What `sse` gives on each face: a `Stream` of the events that connects when it runs; a promise
 * of an {@link ApiResponse} whose `data` is an {@link EventStream}.
 *
 * @since 0.1.0
 * @category models
 */
export type SseResult<F extends ClientFace, A> = F extends "effect"
  ? Stream.Stream<SseEvent<A>, SvcError>
  : Promise<ApiResponse<EventStream<A>>>

/**
 * A request's result — an `Effect` of `ApiSuccess` on the Effect API, a `Promise` of `ApiResponse` on
 * the facade — as a type function of the data type, for a query builder's `get<T>()`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestResultKind<F extends ClientFace> extends QueryResultKind {
  readonly type: RequestResult<F, this["A"]>
}

/**
 * The Effect API's type where `F` is `"effect"`, the facade's otherwise.
 *
 * @since 0.1.0
 * @category models
 */
export type OnFace<F extends ClientFace, OnEffect, OnPromise> = F extends "effect"
  ? OnEffect
  : OnPromise

/** The config the client was made with, with its current headers. */
export const getConfig = (state: ClientState): ClientConfig => ({
  ...state.config,
  headers: { ...state.headers }
})

/**
 * What a client offers besides its requests, on each face: its session, default headers,
 * interceptors and base URL. Each line's `ClientSurface` adds the requests and the config, in
 * that line's types.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientControls<F extends ClientFace> {
  /** The session id the next request would send, if any. */
  readonly getSessionId: () => OnFace<
    F,
    Effect.Effect<Option.Option<Redacted.Redacted<string>>>,
    Promise<string | null>
  >
  readonly hasSession: () => OnFace<F, Effect.Effect<boolean>, Promise<boolean>>
  /**
   * Takes effect at once and is persisted when storage exists. An invalid id (empty, whitespace,
   * over 512 characters) is a `TypeError`: thrown at the call by the facade, a defect in the
   * Effect API.
   */
  readonly setSessionId: (
    id: OnFace<F, string | Redacted.Redacted<string>, string>
  ) => OnFace<F, Effect.Effect<void>, Promise<void>>
  readonly clearSession: () => OnFace<F, Effect.Effect<void>, Promise<void>>
  /** For every later request; a bad name or value is a `TypeError`. */
  readonly setHeader: (name: string, value: string) => OnFace<F, Effect.Effect<void>, void>
  readonly removeHeader: (name: string) => OnFace<F, Effect.Effect<void>, void>
  readonly addRequestInterceptor: (
    interceptor: RequestInterceptor
  ) => OnFace<F, Effect.Effect<void>, void>
  readonly addResponseInterceptor: (
    interceptor: ResponseInterceptor
  ) => OnFace<F, Effect.Effect<void>, void>
  readonly getBaseUrl: () => string
}

/** A client's surface on one face, as written here. */
export type Surface<F extends ClientFace> = ReturnType<typeof surfaceOf<F>>

/**
 * How a face gives back what the client does: the Effect API hands its programs back; the Promise
 * facade runs them (facade.ts). Each member serves every method of one kind.
 */
export interface Face<F extends ClientFace> {
  /**
   * A request: its program, given the face's `CallEnder` if it has one (the facade ends the calls
   * it runs itself; the Effect API's programs end themselves).
   */
  readonly request: <A>(
    program: (ender: CallEnder | undefined) => Effect.Effect<ApiSuccess<A>, SvcError>
  ) => RequestResult<F, A>
  /**
   * A `stream` call: its response's `data` is the body as it arrives. `streamed`: the face's, told
   * how to close the body from the moment it answers (see `StreamedBody`).
   */
  readonly stream: (
    program: (
      ender: CallEnder | undefined,
      streamed: StreamedBody
    ) => Effect.Effect<ApiSuccess<ReadableStream<Uint8Array>>, SvcError>
  ) => StreamResult<F>
  /** An `sse` call: its response's `data` is the events (`streamed` as for `stream`). */
  readonly sse: <A>(
    program: (
      ender: CallEnder | undefined,
      streamed: StreamedBody
    ) => Effect.Effect<ApiSuccess<SseBody<A>>, SvcError>
  ) => SseResult<F, A>
  /** The session id the next request would send. */
  readonly sessionId: (
    program: Effect.Effect<Option.Option<Redacted.Redacted<string>>>
  ) => OnFace<F, Effect.Effect<Option.Option<Redacted.Redacted<string>>>, Promise<string | null>>
  /** Whether there is a session. */
  readonly hasSession: (
    program: Effect.Effect<boolean>
  ) => OnFace<F, Effect.Effect<boolean>, Promise<boolean>>
  /** A change made at once (a bad argument throws), then a program that never fails. */
  readonly changeThen: <A>(
    change: () => A,
    then: (changed: A) => Effect.Effect<void>
  ) => OnFace<F, Effect.Effect<void>, Promise<void>>
  /** A change made at once; a bad argument throws. */
  readonly change: (change: () => void) => OnFace<F, Effect.Effect<void>, void>
  /**
   * `config.refreshSession` called as this face's users write it (an Effect; a value or a
   * promise), with `client`, as an Effect of what it answers.
   */
  readonly refresh: (
    refreshSession: (failed: ApiFailure, client: never) => unknown,
    client: Surface<F>,
    failed: ApiFailure
  ) => Effect.Effect<unknown, unknown>
}

/**
 * The client's surface over a client state and a transport, on one face: written once. Each line's
 * public module gives it that line's types (`ClientSurface<F>`, whose options are the line's own).
 * With `config.refreshSession`, its requests refresh the session on a 401 (`refresh.ts`), calling
 * it with the surface of the same state whose requests never refresh.
 */
export const fromState = <F extends ClientFace>(
  state: ClientState,
  transport: Transport,
  face: Face<F>
): Surface<F> => {
  const refreshSession = state.config.refreshSession
  if (refreshSession === undefined) return surfaceOf(state, transport, face)
  let client: Surface<F> | undefined
  return surfaceOf(
    {
      ...state,
      refresh: (failed) => {
        client ??= surfaceOf(state, transport, face)
        return face.refresh(refreshSession, client, failed)
      }
    },
    transport,
    face
  )
}

/** The stream programs, once loaded. */
type StreamPrograms = ReturnType<typeof import("./streams.js").makeStreams>
let programs: StreamPrograms | undefined

/** The stream programs, loaded by a stream's first call. */
const streamPrograms = /*#__PURE__*/ loadOnce(
  () =>
    import("./streams.js").then(
      (loaded) =>
        (programs = loaded.makeStreams({
          Effect: {
            clockWith: Effect.clockWith,
            exit: Effect.exit,
            fail: Effect.fail,
            flatMap: Effect.flatMap,
            map: Effect.map,
            succeed: Effect.succeed,
            suspend: Effect.suspend,
            sync: Effect.sync,
            tapError: Effect.tapError
          },
          isSuccess: Exit.isSuccess,
          isSvcError,
          request,
          decode,
          foldError,
          invalidRequest,
          startTimer,
          whenAborted,
          closeAlso,
          AbortedError,
          DecodeError,
          UndecodedError,
          ResponseTooLargeError,
          NetworkError,
          TimeoutError,
          InterceptorError,
          joinUrl,
          redactUrls,
          redactUrlsIn,
          urlForMessage,
          describeCause,
          timeoutMillis,
          describe,
          isRecord,
          totalMillisOf,
          readingOptions,
          downloadMeter,
          IDLE_BODY
        }))
    ),
  "stream programs"
)

/**
 * A stream call over the stream programs; a failure to load them is the call's (`NETWORK_ERROR`),
 * reported. Until they have come, the call waits for them within its signal and its total limit,
 * as its request would (a chunk stalled on a bad network ends the call as an abort or a timeout),
 * and its total limit counts from its start (`since`).
 */
const withStreams = <A>(
  state: ClientState,
  endpoint: string,
  options: StreamCallOptions | undefined,
  open: (loaded: StreamPrograms, since?: number) => Effect.Effect<A, SvcError>
): Effect.Effect<A, SvcError> =>
  programs !== undefined
    ? open(programs)
    : Effect.clockWith((clock) => {
        const since = state.line.now(clock)
        // options that cannot be read (a getter or Proxy that throws) bound nothing here: the
        // programs' own check says so once they are loaded
        let loading: Effect.Effect<StreamPrograms, SvcError> = Effect.mapError(
          streamPrograms,
          unloadedError
        )
        try {
          loading = beforeRequest(
            state,
            loading,
            typeof options?.method === "string" ? options.method : "GET",
            endpoint,
            options
          )
        } catch {}
        return Effect.flatMap(
          Effect.tapError(loading, (error) => Effect.sync(() => state.report(error))),
          (loaded) => open(loaded, since)
        )
      })

/**
 * The session as a request would find it, looked up within the client's timeout: past it,
 * `onError` hears a `TimeoutError` ("… waiting for the session lookup") and there is none. A
 * storage or `getSessionId` that never settles never keeps `getSessionId` or `hasSession` pending.
 * (Writes are not bounded: `setSessionId` and `clearSession` answer once their write has settled,
 * so that a logout awaited after a login is written after it.)
 */
const lookup = (state: ClientState): Effect.Effect<Redacted.Redacted<string> | undefined> => {
  const timeoutMillis = state.timeoutMillis
  const found = resolveSession(state.session)
  return timeoutMillis > 0
    ? Effect.matchEffect(
        within(
          state.line,
          found,
          timeoutMillis,
          () => new TimeoutError({ timeoutMillis, waitingFor: "the session lookup" })
        ),
        {
          onFailure: (error) =>
            Effect.sync(() => {
              state.report(error)
              return undefined
            }),
          onSuccess: Effect.succeed
        }
      )
    : found
}

/** The surface of one state: every method, on one face. */
const surfaceOf = <F extends ClientFace>(
  state: ClientState,
  transport: Transport,
  face: Face<F>
) => {
  const send = (
    method: HttpMethod,
    endpoint: string,
    body: unknown,
    options: ClientRequestOptions | undefined
  ) =>
    face.request((ender) =>
      request(state, transport, method, endpoint, body, options, undefined, ender)
    )
  return {
    get: (endpoint: string, options?: ClientRequestOptions) =>
      send("GET", endpoint, undefined, options),
    delete: (endpoint: string, options?: ClientRequestOptions) =>
      send("DELETE", endpoint, undefined, options),
    post: (endpoint: string, body?: unknown, options?: ClientRequestOptions) =>
      send("POST", endpoint, body, options),
    put: (endpoint: string, body?: unknown, options?: ClientRequestOptions) =>
      send("PUT", endpoint, body, options),
    patch: (endpoint: string, body?: unknown, options?: ClientRequestOptions) =>
      send("PATCH", endpoint, body, options),
    stream: (endpoint: string, options?: StreamCallOptions) =>
      face.stream((ender, streamed) =>
        withStreams(state, endpoint, options, (loaded, since) =>
          loaded.openStream(state, transport, endpoint, options, ender, streamed, since)
        )
      ),
    sse: (endpoint: string, options?: StreamCallOptions) =>
      face.sse((ender, streamed) =>
        withStreams(state, endpoint, options, (loaded, since) =>
          loaded.openSse(state, transport, endpoint, options, ender, streamed, since)
        )
      ),
    query: (endpoint: string) =>
      new QueryBuilder<RequestResult<F, unknown>, RequestResultKind<F>>(endpoint, (query) =>
        send(query.method as HttpMethod, query.url, query.body, { headers: query.headers })
      ),
    getSessionId: () =>
      face.sessionId(
        Effect.map(lookup(state), (id) => (id === undefined ? Option.none() : Option.some(id)))
      ),
    hasSession: () => face.hasSession(Effect.map(lookup(state), (id) => id !== undefined)),
    setSessionId: (id: string | Redacted.Redacted<string>) =>
      face.changeThen(
        () => {
          const checked = checkedSessionId(id)
          supersedeRefresh(state.session)
          rememberSession(state.session, checked)
          return checked
        },
        (checked) => persistSession(state.session, checked)
      ),
    clearSession: () =>
      face.changeThen(
        () => {
          supersedeRefresh(state.session)
          forgetSession(state.session)
        },
        () => unpersistSession(state.session)
      ),
    setHeader: (name: string, value: string) => face.change(() => setHeader(state, name, value)),
    removeHeader: (name: string) => face.change(() => removeHeader(state, name)),
    addRequestInterceptor: (interceptor: RequestInterceptor) =>
      face.change(() => addInterceptor(state.requestInterceptors, interceptor)),
    addResponseInterceptor: (interceptor: ResponseInterceptor) =>
      face.change(() => addInterceptor(state.responseInterceptors, interceptor)),
    getBaseUrl: () => state.baseUrl,
    getConfig: () => getConfig(state)
  }
}

/** The transport a config asks for: `config.fetch` when given, else `fallback`. */
export const transportFor = (
  line: ClientDialect,
  config: ClientConfig | undefined,
  fallback: () => Transport
): Transport =>
  config?.fetch === undefined ? fallback() : fromSend(line, fetchTransport(config.fetch))
