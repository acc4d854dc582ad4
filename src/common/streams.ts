/**
 * Bodies read as they arrive (SPEC 4.8), for both faces and both Effect lines: `stream` (the body
 * as a web `ReadableStream`) and `sse` (server-sent events, reconnecting as EventSource does). Each
 * connection is one run of the request program (`client.ts`, with `streamed`): URL, headers,
 * session, interceptors, redirects, retries before the body, spans. What this adds is the body's
 * guard (idle and total time, the signal, failures named after the request) and the events'
 * reconnection loop. Loaded on a stream's first call, it imports nothing the facade loads at once:
 * what it uses of the client comes as a {@link StreamKit} (a module both load would split the
 * facade's bundle into more chunks, a larger download: measured).
 */
import type * as Eff from "effect/Effect"
import type * as ExitT from "effect/Exit"
import type { ApiResponse, ApiSuccess } from "../core/ApiResponse.js"
import type { whenAborted } from "../core/abort.js"
import type { describe, isRecord } from "../core/describe.js"
import type { readingOptions, timeoutMillis } from "../core/options.js"
import type { downloadMeter, Meter } from "../core/progress.js"
import { type EventStream, makeSseParser, type SseEvent } from "../core/sse.js"
import {
  type CheckedStream,
  checkStream,
  lastEventIdHeader,
  UNSENDABLE_EVENT_ID
} from "../core/streamOptions.js"
import type { closeAlso, describeCause, StreamedBody } from "../core/transport.js"
import type { joinUrl, redactUrls, redactUrlsIn, urlForMessage } from "../core/url.js"
import type {
  CallEnder,
  ClientRequestOptions,
  ClientState,
  decode,
  foldError,
  invalidRequest,
  request,
  totalMillisOf
} from "./client.js"
import type { RunningFiber } from "./dialect.js"
import type { startTimer, Transport } from "./exchange.js"
import type {
  AbortedError,
  DecodeError,
  InterceptorError,
  isSvcError,
  NetworkError,
  ResponseTooLargeError,
  SvcError,
  TimeoutError
} from "./SvcError.js"
import type { UndecodedError } from "./UndecodedError.js"

/** What the stream programs use of Effect and of the client, handed over by `service.ts`. */
export interface StreamKit {
  readonly Effect: Pick<
    typeof Eff,
    "clockWith" | "exit" | "fail" | "flatMap" | "map" | "succeed" | "suspend" | "sync" | "tapError"
  >
  readonly isSuccess: typeof ExitT.isSuccess
  readonly isSvcError: typeof isSvcError
  readonly request: typeof request
  readonly decode: typeof decode
  readonly foldError: typeof foldError
  readonly invalidRequest: typeof invalidRequest
  readonly startTimer: typeof startTimer
  readonly whenAborted: typeof whenAborted
  readonly closeAlso: typeof closeAlso
  readonly AbortedError: typeof AbortedError
  readonly DecodeError: typeof DecodeError
  readonly UndecodedError: typeof UndecodedError
  readonly ResponseTooLargeError: typeof ResponseTooLargeError
  readonly NetworkError: typeof NetworkError
  readonly TimeoutError: typeof TimeoutError
  readonly InterceptorError: typeof InterceptorError
  readonly joinUrl: typeof joinUrl
  readonly redactUrls: typeof redactUrls
  readonly redactUrlsIn: typeof redactUrlsIn
  readonly urlForMessage: typeof urlForMessage
  readonly describeCause: typeof describeCause
  readonly timeoutMillis: typeof timeoutMillis
  readonly isRecord: typeof isRecord
  readonly describe: typeof describe
  readonly totalMillisOf: typeof totalMillisOf
  readonly readingOptions: typeof readingOptions
  readonly downloadMeter: typeof downloadMeter
  /** What an idle body's timeout waits for, in its message. */
  readonly IDLE_BODY: string
}

/** Options of `stream` and `sse`, as the program reads them. */
export type StreamCallOptions = ClientRequestOptions & {
  readonly method?: unknown
  readonly body?: unknown
  readonly idleTimeout?: unknown
  readonly lastEventId?: unknown
  readonly reconnect?: unknown
}

/** What a body's guard needs: the request it names, its limits, and the fiber's clock. */
interface BodyGuard {
  readonly method: string
  /** The request's URL, as the caller made it (a message names it without its query). */
  readonly url: string
  /** The longest silence allowed while a read waits; `0`: none. */
  readonly idleMillis: number
  /** The whole call's limit (`totalTimeout`) and when it ends on the clock; `undefined`: none. */
  readonly totalMillis: number
  readonly deadline: number | undefined
  readonly signal: AbortSignal | undefined
  readonly now: () => number
  readonly startTimer: (millis: number, onTime: () => void) => () => void
  readonly report: (error: Error) => void
}

/**
 * The events of an `sse` call: `events` yields them in batches (each one the events of the bytes
 * read at once, never empty) and ends (closes, or errors with the failure that ended them);
 * `ended` says how, once it has. A batch rather than an event per read: a web stream's read costs
 * far more than parsing a small event (a stream per event measured 0.6× of undici.request with
 * eventsource-parser, end to end).
 */
export interface SseBody<A> {
  readonly events: ReadableStream<ReadonlyArray<SseEvent<A>>>
  /** The stream's last event id before its first event (the `lastEventId` option, or `""`). */
  readonly firstEventId: string
  /**
   * The stream's last event id as parsed, id-only blocks included, when every event parsed has
   * gone into a batch; `undefined` while events wait for the next one.
   */
  readonly parsedEventId: () => string | undefined
  /** The status of the last connection. */
  readonly status: () => number
  /** Resolves once the events have ended: with the failure that ended them, else `undefined`. */
  readonly ended: Promise<SvcError | undefined>
  /** The events as the facade gives them (reading `events` from then on). */
  readonly eventStream: () => EventStream<A>
  /** Ends the events (a read that waits ends) and closes the connection; nothing is reported. */
  readonly close: () => void
}

/** What one connection of an `sse` call gave. */
type Connection =
  | {
      readonly _tag: "Open"
      readonly status: number
      readonly headers: Readonly<Record<string, string>>
      readonly body: ReadableStream<Uint8Array>
    }
  | {
      readonly _tag: "End"
      readonly status: number
      readonly headers: Readonly<Record<string, string>>
    }

/**
 * Whether `text` takes more than `limit` bytes as UTF-8; its bytes are counted only when its length
 * says they may be.
 */
const largerThan = (text: string, limit: number): boolean => {
  if (text.length > limit) return true
  if (text.length * 3 <= limit) return false
  let bytes = text.length
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const c = text.charCodeAt(i)
    // one byte more from U+0080 (two in all), two from U+0800 (three), one for each half of a
    // surrogate pair (four)
    if (c >= 0x80) bytes += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2
  }
  return bytes > limit
}

/** The stream programs over a kit: `openStream` and `openSse`. */
export const makeStreams = (kit: StreamKit) => {
  const {
    Effect,
    request,
    decode,
    foldError,
    invalidRequest,
    startTimer,
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
    isSvcError,
    whenAborted,
    closeAlso
  } = kit
  const Exit = { isSuccess: kit.isSuccess }
  const totalMillisOf = kit.totalMillisOf

  /**
   * What keeps a streamed body from its caller, as the response hooks' failure: they replaced it
   * with something that is not a stream, or began to read it (`onResponse` or an interceptor took
   * its reader; it cannot be read twice). `undefined` when the body is the caller's to read.
   */
  const hooksFailure = (body: unknown): InterceptorError | undefined => {
    const detail =
      typeof (body as { readonly getReader?: unknown } | null | undefined)?.getReader !== "function"
        ? "a response interceptor gave a stream's body as something that is not a ReadableStream"
        : (body as ReadableStream).locked
          ? "the body of a stream was read by onResponse or a response interceptor: it is the caller's to read"
          : undefined
    return detail === undefined ? undefined : new InterceptorError({ phase: "response", detail })
  }

  /**
   * Watches what ends a body from outside: the signal and the call's total deadline (`guard`).
   * `onAbort` or `onTotal` runs at once when it has happened already; the answer stops watching.
   */
  const watchLimits = (
    signal: AbortSignal | undefined,
    guard: Pick<BodyGuard, "deadline" | "now" | "startTimer">,
    onAbort: () => void,
    onTotal: () => void
  ): (() => void) => {
    if (signal?.aborted) {
      onAbort()
      return () => undefined
    }
    const left = guard.deadline === undefined ? undefined : guard.deadline - guard.now()
    if (left !== undefined && left <= 0) {
      onTotal()
      return () => undefined
    }
    const stopWaiting = signal === undefined ? undefined : whenAborted(signal, onAbort)
    const cancelTotal = left === undefined ? undefined : guard.startTimer(left, onTotal)
    return () => {
      stopWaiting?.()
      cancelTotal?.()
    }
  }

  /** A failure of a body while it is read, as the Effect API's error. */
  const bodyFailure =
    (method: string, url: string) =>
    (error: unknown): SvcError =>
      isSvcError(error)
        ? error
        : new NetworkError({
            reason: `the response body failed (${redactUrls(describeCause(error))})`,
            method,
            url: urlForMessage(url),
            cause: redactUrlsIn(error)
          })

  /**
   * The body as the caller reads it: the transport's stream, read only when asked (no buffering of
   * its own), errored with the client's failures — `TimeoutError` past `idleMillis` of silence while
   * a read waits or past the call's `totalTimeout`, `AbortedError` when the signal aborts,
   * `NetworkError` naming method and URL when the connection fails — each reported to `onError`.
   * Every way it ends, cancelling it included, closes the connection. `streamed` is told how to
   * close it whoever reads it (see `StreamedBody`).
   */
  const guardBody = (
    source: ReadableStream<Uint8Array>,
    guard: BodyGuard,
    streamed?: StreamedBody
  ): ReadableStream<Uint8Array> => {
    const reader = source.getReader()
    const toFailure = bodyFailure(guard.method, guard.url)
    let finished = false
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined
    let cancelIdle: (() => void) | undefined
    let unwatch: (() => void) | undefined
    const settle = () => {
      finished = true
      cancelIdle?.()
      unwatch?.()
    }
    /**
     * Stops reading the body, once (its connection closes): the source's cancel, or `undefined`
     * when it had already stopped.
     */
    const stop = (reason?: unknown): Promise<void> | undefined => {
      if (finished) return undefined
      settle()
      return reader.cancel(reason).catch(() => undefined)
    }
    const fail = (error: SvcError) => {
      if (stop(error) === undefined) return
      guard.report(error)
      controller?.error(error)
    }
    // closed whoever reads it: a read that waits ends with the body
    if (streamed !== undefined)
      closeAlso(streamed, () => {
        if (stop() !== undefined) controller?.close()
      })
    const timedOut = (timeoutMillis: number, waitingFor?: string) =>
      new TimeoutError({
        timeoutMillis,
        method: guard.method,
        url: urlForMessage(guard.url),
        ...(waitingFor === undefined ? { total: true } : { waitingFor })
      })
    return new ReadableStream<Uint8Array>(
      {
        start: (started) => {
          controller = started
          unwatch = watchLimits(
            guard.signal,
            guard,
            () => fail(new AbortedError({ cause: guard.signal?.reason })),
            () => fail(timedOut(guard.totalMillis))
          )
        },
        pull: (pulled) => {
          if (finished) return
          if (guard.idleMillis > 0) {
            cancelIdle = guard.startTimer(guard.idleMillis, () =>
              fail(timedOut(guard.idleMillis, kit.IDLE_BODY))
            )
          }
          return reader.read().then(
            (result) => {
              cancelIdle?.()
              cancelIdle = undefined
              if (finished) return
              if (result.done) {
                settle()
                pulled.close()
              } else pulled.enqueue(result.value)
            },
            (cause: unknown) => fail(toFailure(cause))
          )
        },
        cancel: (reason) => stop(reason)
      },
      { highWaterMark: 0 }
    )
  }

  /** A call's checked settings, or its invalid argument as a failure (reported). */
  const checked = (
    state: ClientState,
    options: StreamCallOptions
  ): Eff.Effect<CheckedStream, SvcError> => {
    const settings = kit.readingOptions(() =>
      checkStream(state.line, options, state.config.idleTimeout, kit)
    )
    if (!("_tag" in settings)) return Effect.succeed(settings)
    const error = invalidRequest(settings)
    state.report(error)
    return Effect.fail(error)
  }

  /** The call's time limits on the fiber's clock, for its body's guard. */
  const guardOf = (
    state: ClientState,
    options: StreamCallOptions,
    method: string,
    endpoint: string,
    idleMillis: number,
    clock: { readonly now: () => number; readonly started: number },
    startTimer: BodyGuard["startTimer"]
  ): BodyGuard => {
    // a bad value fails the request itself (INVALID_REQUEST)
    const totalMillis = totalMillisOf(state, options)
    return {
      method,
      url: joinUrl(state.baseUrl, typeof endpoint === "string" ? endpoint : ""),
      idleMillis,
      totalMillis,
      deadline: totalMillis > 0 ? clock.started + totalMillis : undefined,
      signal: options.signal,
      now: clock.now,
      startTimer,
      report: state.report
    }
  }

  /**
   * `options` with what is left of the call's total limit, when it has one; without one (none, or a
   * value the request will refuse, for it to say so) as they are.
   */
  const withLeft = (options: StreamCallOptions, guard: BodyGuard): StreamCallOptions =>
    guard.deadline === undefined
      ? options
      : { ...options, totalTimeout: Math.max(1, guard.deadline - guard.now()) }

  /**
   * A request whose 2xx body is handed over as it arrives, as the web stream the transport gives;
   * with `onDownloadProgress` (the request's, else the client's), its progress follows what the
   * caller reads of it.
   */
  const bodyRequest = (
    state: ClientState,
    transport: Transport,
    method: CheckedStream["method"],
    endpoint: string,
    options: StreamCallOptions,
    ender: CallEnder | undefined,
    streamed: StreamedBody
  ) => {
    const callback = options.onDownloadProgress ?? state.config.onDownloadProgress
    if (callback !== undefined)
      streamed.metered = (body, status, headers) => {
        const counter = kit.downloadMeter(callback, method, status, headers)
        if (counter === undefined) return body
        const data = meteredStream(body, counter)
        // a meter over the body is closed too (the exchange closes the body itself)
        closeAlso(streamed, () => {
          if (!data.locked) data.cancel().catch(() => undefined)
        })
        return data
      }
    return request<ReadableStream<Uint8Array>>(
      state,
      transport,
      method,
      endpoint,
      options.body,
      options,
      streamed,
      ender
    )
  }

  /**
   * `body`, its chunks counted by `counter` as the reader takes them: progress follows what the
   * caller reads, and the end of the body gives the last call. Nothing is copied.
   */
  const meteredStream = (
    body: ReadableStream<Uint8Array>,
    counter: Meter
  ): ReadableStream<Uint8Array> => {
    const reader = body.getReader()
    // a read still pending when the caller cancels tells nothing more
    let cancelled = false
    return new ReadableStream<Uint8Array>(
      {
        pull: (controller) =>
          reader.read().then((next) => {
            if (cancelled) return
            if (next.done) {
              counter.end()
              controller.close()
            } else {
              controller.enqueue(next.value)
              counter.add(next.value.byteLength)
            }
          }),
        cancel: (reason) => {
          cancelled = true
          return reader.cancel(reason)
        }
      },
      { highWaterMark: 0 }
    )
  }

  /**
   * `stream`: the request, answered once the final response's headers are in; on a 2xx `data` is
   * the body as a guarded web `ReadableStream`. `streamed`: the caller's (each face gives one), told
   * how to close the body whoever reads it, so that a call that does not hand it over closes it.
   * `since`: when the call began on the fiber's clock, if before now (it waited for these
   * programs): its total limit counts from then.
   */
  const openStream = (
    state: ClientState,
    transport: Transport,
    endpoint: string,
    options: StreamCallOptions = {},
    ender: CallEnder | undefined,
    streamed: StreamedBody,
    since?: number
  ): Eff.Effect<ApiSuccess<ReadableStream<Uint8Array>>, SvcError> =>
    Effect.flatMap(checked(state, options), (settings) =>
      Effect.clockWith((clock) => {
        const line = state.line
        const now = () => line.now(clock)
        const guard = guardOf(
          state,
          options,
          settings.method,
          endpoint,
          settings.idleTimeoutMillis,
          { now, started: since ?? now() },
          (millis, onTime) => startTimer(line, clock, millis, onTime)
        )
        // what is left of the call's limit, when it began before now
        const limited = since === undefined ? options : withLeft(options, guard)
        return Effect.flatMap(
          bodyRequest(state, transport, settings.method, endpoint, limited, ender, streamed),
          (response) => {
            const failure = hooksFailure(response.data)
            if (failure !== undefined) {
              state.report(failure)
              return Effect.fail(failure)
            }
            return Effect.succeed({ ...response, data: guardBody(response.data, guard, streamed) })
          }
        )
      })
    )

  const EVENT_STREAM = "text/event-stream"

  /**
   * A connection's answer: a 204 ends the stream; any other 2xx must be `text/event-stream`, else
   * `DecodeError` naming what it is.
   */
  const connectionOf = (
    response: ApiSuccess<ReadableStream<Uint8Array>>
  ): Eff.Effect<Connection, DecodeError | InterceptorError> => {
    const body = response.data
    const headers = response.headers ?? {}
    if (response.status === 204) {
      if (body instanceof ReadableStream) body.cancel().catch(() => undefined)
      return Effect.succeed({ _tag: "End", status: 204, headers })
    }
    // (reported by the request's caller, as a DecodeError is)
    const failure = hooksFailure(body)
    if (failure !== undefined) return Effect.fail(failure)
    const type = headers["content-type"]
    const media = type?.split(";")[0]?.trim().toLowerCase()
    if (media !== EVENT_STREAM) {
      body.cancel().catch(() => undefined)
      return Effect.fail(
        new UndecodedError({
          status: response.status,
          body: undefined,
          detail: `the response is not ${EVENT_STREAM}: its Content-Type is ${
            type === undefined ? "absent" : JSON.stringify(type)
          }`,
          headers
        })
      )
    }
    return Effect.succeed({ _tag: "Open", status: response.status, headers, body })
  }

  /**
   * Whether a failure counts as a dropped connection, after which the stream reconnects: a network
   * failure that could pass, or a timeout of one connection (not the whole call's).
   */
  const isDropped = (error: SvcError): boolean =>
    (error._tag === "NetworkError" && error.permanent !== true) ||
    (error._tag === "TimeoutError" && error.total !== true)

  /**
   * `sse`: the first connection, answered once its headers are in; on a 2xx `data` is the stream's
   * events, which reconnect as EventSource does (SPEC 4.8). `since`: as `openStream`'s.
   */
  const openSse = <A>(
    state: ClientState,
    transport: Transport,
    endpoint: string,
    options: StreamCallOptions = {},
    ender: CallEnder | undefined,
    streamed: StreamedBody,
    since?: number
  ): Eff.Effect<ApiSuccess<SseBody<A>>, SvcError> =>
    Effect.flatMap(checked(state, options), (settings) =>
      Effect.flatMap(state.line.runnerInContext, (run) =>
        Effect.clockWith((clock) => {
          const line = state.line
          const now = () => line.now(clock)
          const timer = (millis: number, onTime: () => void) =>
            startTimer(line, clock, millis, onTime)
          const guard = guardOf(
            state,
            options,
            settings.method,
            endpoint,
            settings.idleTimeoutMillis,
            { now, started: since ?? now() },
            timer
          )
          // an event whose data is past maxResponseBytes ends the events: it and what follows
          // are not kept
          let overLimit = false
          const parser = makeSseParser({
            onEvent: (event) => {
              if (overLimit || largerThan(event.data, state.maxResponseBytes)) overLimit = true
              else queue.push(event)
            },
            lastEventId: settings.lastEventId
          })
          const queue: Array<SseEvent<string>> = []
          const headers = options.headers
          // each connection: the request as the caller made it, asking for events, from the last
          // id; the first is the call's (the facade's ender ends it, its retries apply), a
          // reconnection runs on a fiber of its own, ends itself as the Effect API's requests do,
          // and is one try (`reconnect.attempts` counts them)
          const connectWith = (
            ender: CallEnder | undefined,
            streamed: StreamedBody,
            once: boolean
          ) =>
            Effect.suspend(() => {
              const id = parser.lastEventId
              // spread, not assigned: an own `__proto__` stays a key, for the check to refuse
              const asked: Record<string, string | null | undefined> = {
                accept: EVENT_STREAM,
                ...headers
              }
              if (id !== "") asked["last-event-id"] = lastEventIdHeader(id)
              // the call's limit bounds every connection: what is left of it
              return Effect.flatMap(
                bodyRequest(
                  state,
                  transport,
                  settings.method,
                  endpoint,
                  once
                    ? {
                        ...withLeft(options, guard),
                        headers: asked,
                        retryAttempts: 0,
                        retrySchedule: undefined
                      }
                    : { ...withLeft(options, guard), headers: asked },
                  ender,
                  streamed
                ),
                (response) =>
                  Effect.tapError(connectionOf(response), (error) =>
                    Effect.sync(() => state.report(error))
                  )
              )
            })
          const connect = (streamed: StreamedBody) => connectWith(undefined, streamed, true)
          return Effect.map(connectWith(ender, streamed, false), (connection) => {
            const data = events<A>(
              state,
              settings,
              guard,
              parser,
              queue,
              () => overLimit,
              connection,
              run,
              connect,
              options
            )
            closeAlso(streamed, data.close)
            // the first connection's headers, as any call's response has its own
            return { success: true, status: connection.status, data, headers: connection.headers }
          })
        })
      )
    )

  /** The events of an `sse` call, from its first connection on. */
  const events = <A>(
    state: ClientState,
    settings: CheckedStream,
    guard: BodyGuard,
    parser: ReturnType<typeof makeSseParser>,
    queue: Array<SseEvent<string>>,
    overLimit: () => boolean,
    first: Connection,
    run: <B, E>(effect: Eff.Effect<B, E>) => RunningFiber<B, E>,
    connect: (streamed: StreamedBody) => Eff.Effect<Connection, SvcError>,
    options: StreamCallOptions
  ): SseBody<A> => {
    const line = state.line
    // each connection's body: idle time only (the stream itself watches the signal and total time)
    const bodyGuard: BodyGuard = { ...guard, deadline: undefined, signal: undefined }
    let status = first.status
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined =
      first._tag === "Open" ? guardBody(first.body, bodyGuard).getReader() : undefined
    let ended = first._tag === "End"
    let failures = 0
    let oversized: ResponseTooLargeError | undefined
    let controller: ReadableStreamDefaultController<ReadonlyArray<SseEvent<A>>> | undefined
    let fiber: unknown
    let cancelWait: (() => void) | undefined
    let wake: (() => void) | undefined
    let unwatch: (() => void) | undefined
    let resolveEnded: (error: SvcError | undefined) => void = () => undefined
    const endedWith = new Promise<SvcError | undefined>((resolve) => {
      resolveEnded = resolve
    })
    /**
     * Ends the events (once): everything still open is closed, `ended` resolves; a failure not
     * reported yet goes to `onError`.
     */
    const finish = (error?: SvcError, cancelled = false, reported = false) => {
      if (ended && controller === undefined) return
      const open = controller
      controller = undefined
      ended = true
      unwatch?.()
      cancelWait?.()
      wake?.()
      if (fiber !== undefined) line.interrupt(fiber)
      reader?.cancel().catch(() => undefined)
      reader = undefined
      resolveEnded(error)
      if (open === undefined || cancelled) return
      if (error === undefined) open.close()
      else {
        if (!reported) state.report(error)
        open.error(error)
      }
    }
    const runToExit = <B>(effect: Eff.Effect<B, SvcError>) =>
      new Promise<ExitT.Exit<B, SvcError>>((resolve) => {
        const running = run(effect)
        fiber = running
        running.addObserver((exit) => {
          fiber = undefined
          resolve(exit)
        })
      })
    const wait = (millis: number) =>
      new Promise<void>((resolve) => {
        wake = resolve
        cancelWait = timer(millis, resolve)
      })
    const timer = bodyGuard.startTimer
    /** Connects again until a connection opens (`true`) or the events end (`false`). */
    const reconnect = async (): Promise<boolean> => {
      const policy = settings.reconnect
      if (policy === false) {
        finish()
        return false
      }
      // an id that cannot go back to the server: resuming without it would replay the events
      if (UNSENDABLE_EVENT_ID.test(parser.lastEventId)) {
        finish(
          new UndecodedError({
            status,
            body: parser.lastEventId,
            detail:
              "the event id the server set cannot be sent back as Last-Event-ID: it holds a control character"
          })
        )
        return false
      }
      for (;;) {
        await wait(parser.retry ?? policy.delayMillis)
        if (ended) return false
        // how to close this connection's body, from the moment it answers
        const streamed: StreamedBody = { close: undefined }
        const exit = await runToExit(connect(streamed))
        // closed (or interrupted) while its answer came back: that connection is closed too
        if (ended || !Exit.isSuccess(exit)) streamed.close?.()
        if (ended) return false
        if (Exit.isSuccess(exit)) {
          const connection = exit.value
          status = connection.status
          if (connection._tag === "End") {
            finish()
            return false
          }
          failures = 0
          reader = guardBody(connection.body, bodyGuard).getReader()
          return true
        }
        const error = line.failureOf(exit.cause)
        if (error === undefined) {
          // interrupted or a defect: nothing more can come
          finish(
            new NetworkError({ reason: "the stream's connection ended", method: guard.method })
          )
          return false
        }
        // the request reported it; a server that answered with a failure, whose body then did
        // not come in time, answered all the same: not a dropped connection (SPEC 4.8)
        if (!isDropped(error) || (streamed.status ?? 0) >= 400 || ++failures >= policy.attempts) {
          finish(error, false, true)
          return false
        }
      }
    }
    const schema = options.schema
    /** An event as the caller gets it, its data decoded with the schema, or why it could not be. */
    const decoded = (event: SseEvent<string>): Eff.Effect<SseEvent<A> | DecodeError> => {
      let parsed: unknown
      try {
        parsed = JSON.parse(event.data)
      } catch (cause) {
        return Effect.succeed(
          new UndecodedError({
            status,
            body: event.data,
            detail: `the event's data is not JSON: ${cause instanceof Error ? cause.message : String(cause)}`,
            cause
          })
        )
      }
      return Effect.map(
        Effect.exit(decode<A>(line, { success: true, status, data: parsed }, schema)),
        (exit) => {
          if (Exit.isSuccess(exit)) return { ...event, data: exit.value.data }
          const error = line.failureOf(exit.cause)
          return error instanceof DecodeError
            ? error
            : new UndecodedError({
                status,
                body: event.data,
                detail: "the event could not be decoded"
              })
        }
      )
    }
    /** `events` from `at` decoded into `batch`, up to the first that fails: that failure. */
    const decodedFrom = (
      events: ReadonlyArray<SseEvent<string>>,
      at: number,
      batch: Array<SseEvent<A>>
    ): Eff.Effect<DecodeError | undefined> =>
      at === events.length
        ? Effect.succeed(undefined)
        : Effect.flatMap(decoded(events[at]!), (value) => {
            if (value instanceof DecodeError) return Effect.succeed(value)
            batch.push(value)
            return decodedFrom(events, at + 1, batch)
          })
    /**
     * The events parsed so far, decoded with the schema when one was given (all in one run), as
     * one batch; a failure to decode ends the events after those before it.
     */
    const deliver = async (open: ReadableStreamDefaultController<ReadonlyArray<SseEvent<A>>>) => {
      const parsed = queue.splice(0, queue.length)
      if (schema === undefined)
        return open.enqueue(
          parsed as ReadonlyArray<SseEvent<unknown>> as ReadonlyArray<SseEvent<A>>
        )
      const batch: Array<SseEvent<A>> = []
      const exit = await runToExit(
        Effect.suspend(() => decodedFrom(parsed as ReadonlyArray<SseEvent<string>>, 0, batch))
      )
      // (the run is interrupted only by `finish`, which lets go of the controller first)
      if (controller === undefined) return
      if (batch.length > 0) controller.enqueue(batch)
      const failure = Exit.isSuccess(exit)
        ? exit.value
        : new UndecodedError({
            status,
            body: parsed[batch.length]?.data,
            detail: "the event could not be decoded"
          })
      if (failure !== undefined) finish(failure)
    }
    /** The next events, or the end. */
    const pull = async (): Promise<void> => {
      for (;;) {
        if (controller === undefined) return
        if (queue.length > 0) return deliver(controller)
        if (oversized !== undefined) return finish(oversized)
        if (reader === undefined) {
          if (!(await reconnect())) return
          continue
        }
        let result: ReadableStreamReadResult<Uint8Array>
        try {
          result = await reader.read()
        } catch (cause) {
          // a dropped connection (reported by the body's guard), or an idle one
          parser.end()
          reader = undefined
          const error = cause as SvcError
          if (!isDropped(error) || settings.reconnect === false) return finish(error, false, true)
          continue
        }
        if (result.done) {
          parser.end()
          reader = undefined
          continue
        }
        parser.push(result.value)
        // an event (or a line) that goes on past maxResponseBytes, or one that came whole: its
        // connection closes at once, and the events end with its failure after those before it
        // (what the parser holds between reads counts in UTF-16 code units, one for each byte of
        // ASCII, fewer than the bytes beyond: an unfinished event of such text is held up to the
        // limit in characters, then refused; a finished one is counted in bytes)
        if (overLimit() || parser.buffered > state.maxResponseBytes) {
          parser.end()
          reader.cancel().catch(() => undefined)
          reader = undefined
          oversized = new ResponseTooLargeError({
            maxResponseBytes: state.maxResponseBytes,
            status
          })
        }
      }
    }
    const stream = new ReadableStream<ReadonlyArray<SseEvent<A>>>(
      {
        start: (started) => {
          if (ended) return started.close()
          controller = started
          unwatch = watchLimits(
            options.signal,
            guard,
            () => finish(new AbortedError({ cause: options.signal?.reason })),
            () =>
              finish(
                new TimeoutError({
                  timeoutMillis: guard.totalMillis,
                  total: true,
                  method: guard.method,
                  url: urlForMessage(guard.url)
                })
              )
          )
        },
        pull,
        cancel: () => finish(undefined, true)
      },
      { highWaterMark: 0 }
    )
    if (ended) resolveEnded(undefined)
    const body: SseBody<A> = {
      events: stream,
      firstEventId: settings.lastEventId,
      parsedEventId: () => (queue.length === 0 ? parser.lastEventId : undefined),
      status: () => status,
      ended: endedWith,
      eventStream: () => eventStreamOf(body),
      close: () => finish()
    }
    return body
  }

  const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined }

  /**
   * An iteration's result, made by `new Object()` rather than as a literal, which V8 would pretenure
   * with the batch's events waiting behind it (see `core/record.ts`, which this chunk does not import).
   */
  const nextOf = <A>(value: A): IteratorYieldResult<A> => {
    const result = new Object() as { done: false; value: A }
    result.done = false
    result.value = value
    return result
  }

  /**
   * An `sse` call's events as the facade gives them: iterated with `for await` (which ends without
   * throwing, however the stream ends), `close()`, `lastEventId`, and `closed`, which says how it
   * ended.
   */
  const eventStreamOf = <A>(body: SseBody<A>): EventStream<A> => {
    const reader = body.events.getReader()
    // the batch being handed out, one event per `next()`, and the read of the next one
    let batch: ReadonlyArray<SseEvent<A>> = []
    let at = 0
    let stopped = false
    let reading: Promise<IteratorResult<SseEvent<A>>> | undefined
    // the stream's last event id as the caller has it: the id of the last event handed out (the
    // parser's runs ahead, over events not handed out yet), or the parser's once every event it
    // read has been handed out (an id-only block after them moves it, as in EventSource); kept as
    // it was when the caller closed the stream
    let kept: string | undefined
    const lastHandedId = () => {
      if (kept !== undefined) return kept
      const caughtUp = at === batch.length && reading === undefined
      return (
        (caughtUp ? body.parsedEventId() : undefined) ??
        (at > 0 ? batch[at - 1]!.id : body.firstEventId)
      )
    }
    const close = () => {
      kept = lastHandedId()
      stopped = true
      batch = []
      at = 0
      reader.cancel().catch(() => undefined)
    }
    const stop = (): IteratorResult<SseEvent<A>> => {
      reading = undefined
      stopped = true
      return DONE
    }
    const next = (): Promise<IteratorResult<SseEvent<A>>> => {
      // a call made while a read waits (not with `for await`) takes its turn after it
      if (reading !== undefined) return reading.then(next)
      if (at < batch.length) return Promise.resolve(nextOf(batch[at++]!))
      if (stopped) return Promise.resolve(DONE)
      reading = reader.read().then((result): IteratorResult<SseEvent<A>> => {
        if (result.done) return stop()
        reading = undefined
        batch = result.value
        at = 1
        return nextOf(batch[0]!)
      }, stop)
      return reading
    }
    const iterator: AsyncIterableIterator<SseEvent<A>> = {
      next,
      return: () => {
        close()
        return Promise.resolve(DONE)
      },
      [Symbol.asyncIterator]: () => iterator
    }
    // a literal with a getter, kept so (test/accessors.test.ts): its own properties are what a
    // spread, a `Proxy` (Vue's `reactive`) or `JSON.stringify` of the stream see; one per call
    return {
      [Symbol.asyncIterator]: () => iterator,
      close,
      get lastEventId() {
        return lastHandedId()
      },
      closed: body.ended.then(
        (error): ApiResponse<undefined> =>
          error === undefined
            ? { success: true, status: body.status(), data: undefined }
            : foldError(error)
      )
    }
  }

  return { openStream, openSse }
}
