/**
 * What the shared code needs of an Effect line that the two Effects spell differently: the
 * dialect. Each line gives it once, in its `internal/dialect.ts` (`src/internal/dialect.ts` for
 * Effect 4, `src/v3/internal/dialect.ts` for Effect 3), member for member in the order below, so
 * that a `diff` of the two files is the list of differences between the Effects svc-sdk uses.
 *
 * A dialect comes in sections that load apart: what a Promise facade needs (`ClientDialect`), what
 * only the Effect API's calls record (`TracingDialect`), the `HttpClient` adapter's platform
 * modules, loaded when a layer first needs them (`HttpClientDialect`, in `internal/httpClient.ts`),
 * what the Effect API's `Stream`s need (`StreamDialect`),
 * and the server half's (`AuthDialect`). Everything else is written once, against the part of
 * Effect's API both lines spell the same.
 */
import type * as Cause from "effect/Cause"
import type * as Clock from "effect/Clock"
import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Stream from "effect/Stream"
import type * as Tracer from "effect/Tracer"
import type { LineValues } from "../core/options.js"
import type { SessionCookie } from "../core/sessionCookie.js"
import type { Decoded } from "./authRequest.js"
import type { SvcError } from "./SvcError.js"
import type { KeyValues } from "./sessionStore.js"

/** A fiber, as the shared code handles one: observed, and interrupted with the dialect's `interrupt`. */
export interface RunningFiber<A, E> {
  readonly addObserver: (observer: (exit: Exit.Exit<A, E>) => void) => unknown
}

/** How a call retries: on the caller's `Schedule` of the line, or the default backoff's retries. */
export type RetryPlan = { readonly schedule: unknown } | { readonly attempts: number }

/**
 * The request program's, the exchange's and the facade's share of a line. `LineValues` tell the
 * shared option checks the line's `Duration` inputs, `Schedule`s and `Schema`s.
 */
export interface ClientDialect extends LineValues {
  /**
   * `effect` again on the plan's schedule while it fails transiently, a `Retry-After` setting the
   * wait (the schedules' code loaded on the first call).
   */
  readonly retry: <A>(
    effect: Effect.Effect<A, SvcError>,
    plan: RetryPlan
  ) => Effect.Effect<A, SvcError>
  /** The clock's time, in milliseconds. */
  readonly now: (clock: Clock.Clock) => number
  /** An Effect resumed by a callback; the returned Effect runs when it is interrupted. */
  readonly callback: <A, E>(
    register: (resume: (effect: Effect.Effect<A, E>) => void) => void | Effect.Effect<void>
  ) => Effect.Effect<A, E>
  /** Lets the fiber's turn end. */
  readonly yieldNow: Effect.Effect<void>
  /** Runs `f` with the current fiber (for the call's span). */
  readonly withFiber: <A, E>(f: (fiber: unknown) => Effect.Effect<A, E>) => Effect.Effect<A, E>
  /**
   * A response's data as a schema of this line may decode it: on Effect 3, its own `__proto__`
   * keys taken out (Effect 3 decodes a `Record` by assigning each key, and that one would set
   * the prototype); on Effect 4, as it is.
   */
  readonly decodable: (data: unknown) => unknown
  /** Decodes `data` with an `effect/Schema` of this line: its output, or the message and cause. */
  readonly decodeSchema: (
    schema: unknown,
    data: unknown
  ) => Effect.Effect<unknown, { readonly message: string; readonly cause: unknown }>
  /** The first failure of a cause, if any (`undefined` else). */
  readonly failureOf: <E>(cause: Cause.Cause<E>) => E | undefined
  /** Whether a cause holds interruptions only. */
  readonly isInterruptedOnly: (cause: Cause.Cause<unknown>) => boolean
  /** Interrupts a fiber without waiting for it. */
  readonly interrupt: (fiber: unknown) => void
  /** Runs `effect` on a fiber of its own, with the caller's services (its span, `Clock`, …). */
  readonly forkInContext: <A, E>(
    effect: Effect.Effect<A, E>
  ) => Effect.Effect<() => RunningFiber<A, E>>
  /**
   * A runner of effects on fibers of their own, each with the caller's services (its `Clock`,
   * span, …): what a stream's later connections run on.
   */
  readonly runnerInContext: Effect.Effect<<A, E>(effect: Effect.Effect<A, E>) => RunningFiber<A, E>>
  /**
   * The facade's runners: Effect's default runtime, with the tracer (and on Effect 3 the fiber
   * metrics) off — the facade's users have no tracer to read its spans. Set once, per line.
   */
  readonly runFork: <A, E>(effect: Effect.Effect<A, E>) => RunningFiber<A, E>
  readonly runPromise: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
}

/** A histogram series of the request duration, recorded in the step that ends a call. */
export interface DurationRecorder {
  readonly record: (seconds: number, fiber: unknown) => void
}

/** What the Effect API's calls record: a span around each, and its duration. */
export interface TracingDialect {
  /** The request-duration histogram's series for these attribute values. */
  readonly histogram: (attributes: Readonly<Record<string, string>>) => DurationRecorder
  /** The span's name, as the line's own `HttpClient` names its client spans. */
  readonly spanName: (method: string) => string
  /** The fiber's clock, in nanoseconds: a span's times. */
  readonly nanos: (fiber: unknown) => () => bigint
  /** The fiber's clock's monotonic time, in nanoseconds: a call's duration. */
  readonly monotonicNanos: (fiber: unknown) => () => bigint
  /** Whether the fiber's tracer is on, and whether its spans are timed. */
  readonly tracerEnabled: (fiber: unknown) => boolean
  readonly timingEnabled: (fiber: unknown) => boolean
  /** `effect`, its spans children of `span`. */
  readonly withParentSpan: <A, E>(
    effect: Effect.Effect<A, E>,
    span: Tracer.Span
  ) => Effect.Effect<A, E>
}

/** What only the Effect API's `Stream`s (`stream`, `sse`) need of a line. */
export interface StreamDialect {
  /**
   * The elements of a web stream of batches (never empty), read when the `Stream` runs, each batch
   * handed on as one chunk, its reader cancelled when the `Stream` ends: `sse`'s events. A `Stream`
   * per batch (`flatMap` to `fromIterable`) costs far more: on Effect 3 some 100× (a few
   * milliseconds a batch), on Effect 4 a third of the Effect API's CPU per event; on Effect 3 each
   * stage after `fromReadableStream` (a `map`, `flattenChunks`) costs a few µs a batch.
   */
  readonly fromBatches: <A, E>(
    readable: () => ReadableStream<ReadonlyArray<A>>,
    onError: (error: unknown) => E
  ) => Stream.Stream<A, E>
}

/** An `HttpClient`, as the adapter sends with it (both lines spell it alike). */
export interface PlatformClient {
  readonly execute: (request: never) => Effect.Effect<PlatformResponse, unknown>
}

/** A response of an `HttpClient`, as the adapter reads it. */
export interface PlatformResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly request: { readonly url: string }
  /** The whole body at once: read when its length is known to fit and nothing decodes it. */
  readonly arrayBuffer: Effect.Effect<ArrayBuffer, unknown>
  /** The body chunk by chunk; its end (or its interruption) aborts what is left of the exchange. */
  readonly stream: unknown
}

/**
 * The `HttpClient` adapter's share of a line: the platform's HTTP modules (`effect/http` on
 * Effect 4, `@effect/platform` on Effect 3), loaded when a layer first needs them.
 */
export interface HttpClientDialect {
  /** A request with these headers and no body. */
  readonly request: (
    method: string,
    url: string,
    headers: Readonly<Record<string, string>>
  ) => unknown
  /** The request with a body: text, bytes of a type, or bytes as they are (`raw`). */
  readonly bodyText: (request: never, text: string, contentType?: string) => unknown
  readonly bodyUint8Array: (request: never, bytes: Uint8Array, contentType?: string) => unknown
  readonly setBody: (request: never, body: never) => unknown
  readonly raw: (bytes: Uint8Array) => unknown
  /** Folds a response's body stream, chunk by chunk. */
  readonly fold: <S, E>(
    stream: unknown,
    initial: S,
    f: (state: S, chunk: Uint8Array) => Effect.Effect<S, E>
  ) => Effect.Effect<S, unknown>
  /**
   * Forks `effect` on a fiber that the caller's end interrupts, interruptible even where the caller
   * is not, with the caller's services (its span, `Clock`, …) and, set once as the fiber starts
   * rather than by a scoped change each: these headers redacted in the client's records, the
   * client's own span off, and redirects left to svc-sdk (`FetchHttpClient`'s `RequestInit`).
   */
  readonly forkQuiet: <A, E>(
    effect: Effect.Effect<A, E>,
    secretHeaders: ReadonlyArray<string>
  ) => Effect.Effect<RunningFiber<A, E>>
}

/**
 * The server half's share of a line (`internal/auth.ts`): what the guards, validators and stores
 * need of its Effect and its HTTP server modules. `client` is the line's client dialect (its
 * `Duration` inputs, timeouts and causes).
 */
export interface AuthDialect<Session> {
  readonly client: ClientDialect
  /**
   * `effect`, or `onTimeout()`'s failure once `millis` have passed on the fiber's clock (the
   * servers' only: a client bounds its waits with timers of its own, which its bundle carries anyway).
   */
  readonly timeout: <A, E, R, E2>(
    effect: Effect.Effect<A, E, R>,
    millis: number,
    onTimeout: () => E2
  ) => Effect.Effect<A, E | E2, R>
  /** The line's `SessionData` decoding. */
  readonly decodeSession: (value: unknown) => Decoded<Session>
  /** The line's clock, as a function that reads it at once. */
  readonly clock: Effect.Effect<() => number>
  /**
   * Effect's `Cache` of the line over `lookup`: a failed lookup is dropped from it at once, so the
   * next `get` asks again.
   */
  readonly cache: <A, E>(
    lookup: (key: string) => Effect.Effect<A, E>,
    capacity: number,
    timeToLive: (exit: Exit.Exit<A, E>) => number
  ) => Effect.Effect<(key: string) => Effect.Effect<A, E>>
  /** The fiber's services, for `f`. */
  readonly contextWithEffect: <A, E, R>(
    f: (context: Context.Context<never>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
  /** `self` with these services provided. */
  readonly provideContext: <A, E, R>(
    self: Effect.Effect<A, E, R>,
    context: Context.Context<never>
  ) => Effect.Effect<A, E, R>
  /**
   * `self` with these services provided, its success passed through `onSuccess`, and `onFailure`
   * run when it fails or is interrupted, after the fiber's own services are back: a guard's
   * handler, run on every request it lets through, in each line's fewest steps.
   */
  readonly provideThen: <A, E, R>(
    self: Effect.Effect<A, E, R>,
    context: Context.Context<never>,
    onSuccess: (answer: A) => A,
    onFailure: Effect.Effect<void>
  ) => Effect.Effect<A, E, R>
  /** A service key of the line (`Context.Service`, `Context.GenericTag`), by its key string. */
  readonly serviceKey: (key: string) => unknown
  /** A lock: `effect`, one at a time. */
  readonly makeLock: Effect.Effect<
    <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  >
  /** The application's `KeyValueStore` (the line's service), as the stores use it. */
  readonly keyValueStore: Effect.Effect<KeyValues, never, unknown>
  /** The line's `HttpServerRequest` key. */
  readonly serverRequest: unknown
  /** `{"error": text}` as `application/json`, with `status`. */
  readonly errorResponse: (status: number, text: string) => unknown
  /**
   * Registers, for the request being served, a step its response goes through as it is sent, the
   * server's answer to a failure included: `Cache-Control: no-store` unless the response has a
   * `Cache-Control` already. Nothing happens outside a served request.
   */
  readonly noStore: Effect.Effect<void>
  /**
   * The response with `Cache-Control: no-store`, unless it has a `Cache-Control`: what `noStore`
   * does, on an answer at hand (no step registered for the request).
   */
  readonly withNoStore: (response: unknown) => unknown
  /** Whether `value` is one of the line's `HttpServerResponse`s. */
  readonly isResponse: (value: unknown) => boolean
  /** The response with this cookie set; its name and attributes are checked already. */
  readonly setCookie: (
    response: unknown,
    name: string,
    value: string,
    options: SessionCookie["options"]
  ) => unknown
  /**
   * The line's `HttpServerRespondable`: its key, and the response of an error that answers for
   * itself — `{"error": text}` as `application/json`, with `status` and these headers.
   */
  readonly respondable: {
    readonly key: string | symbol
    readonly errorResponse: (
      status: number,
      text: string,
      headers: Readonly<Record<string, string>>
    ) => unknown
  }
}
