/**
 * The client: an Effect service (`yield* SvcClient`) and, with `new SvcClient(url)` or
 * `createSvc(url)`, a Promise facade that runs the same program and never rejects.
 *
 * @since 0.1.0
 */

import type * as Config from "effect/Config"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { HttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import { loadConfigError } from "#onDemand"
import type { ApiResponse, ApiSuccess } from "../core/ApiResponse.js"
import type { HttpMethod } from "../core/http.js"
import type {
  RedirectMode,
  RequestConfig,
  RequestInterceptor,
  ResponseInterceptor
} from "../core/request.js"
import type { ResponseType } from "../core/response.js"
import type { StandardSchemaV1 } from "../core/standardSchema.js"
import type { FetchFunction } from "../core/transport.fetch.js"
import type { Params } from "../core/url.js"
import type { QueryBuilder } from "../Query/index.js"
import type { StorageAdapter } from "../Storage/StorageAdapter.js"
import * as facade from "./internal/facade.js"
import * as service from "./internal/service.js"
import * as viaHttpClient from "./internal/viaHttpClient.js"
import type { SvcError } from "./SvcError.js"

export type {
  FetchFunction,
  HttpMethod,
  RedirectMode,
  RequestConfig,
  RequestInterceptor,
  ResponseInterceptor,
  ResponseType,
  StandardSchemaV1
}

/**
 * A value of `options.params`: arrays repeat the key, `null`/`undefined` are dropped, a `Date` is
 * sent as its ISO string.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestParams = Params

/**
 * Client configuration. Checked once at construction: bad values throw a `TypeError` or
 * `RangeError` naming the option.
 *
 * @since 0.1.0
 * @category models
 */
export interface SvcConfig {
  /**
   * A session id sent with every request to the base URL's origin.
   * @default undefined
   */
  readonly sessionId?: string
  /**
   * Asked for the session id before each request when neither `setSessionId` nor `sessionId`
   * gave one. Sync or async; a throw or rejection means no session (and goes to `onError`).
   * @default undefined
   */
  readonly getSessionId?: () => string | null | undefined | Promise<string | null | undefined>
  /**
   * Whether requests carry the session header. A request's `includeSession` wins.
   * @default true
   */
  readonly includeSession?: boolean
  /**
   * The header that carries the session id.
   * @default "X-Session-Id"
   */
  readonly sessionHeader?: string
  /**
   * Where session ids are read from and `setSessionId` persists them. When absent, the runtime's
   * storage is detected once (`detectStorage()`); on a server there is none.
   * @default detected
   */
  readonly storage?: StorageAdapter
  /**
   * Headers sent with every request; per-request headers win (names are case-insensitive). A
   * header whose value is `undefined` or `null` is left out. `Authorization`, `Cookie` and
   * `Proxy-Authorization` only ever go to the base URL's origin.
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string | null | undefined>>
  /**
   * Retries on network errors, timeouts and 408/425/429/500/502/503/504, for GET, PUT, DELETE,
   * HEAD, OPTIONS, and POST/PATCH with an `Idempotency-Key` header. Ignored when `retrySchedule`
   * is given.
   * @default 2
   */
  readonly retryAttempts?: number
  /**
   * Time allowed for each try, and for each piece of your code a request waits on (the session
   * lookup, interceptors, `onRequest`, `onResponse`): milliseconds, or any `Duration`, at most
   * 2 147 483 647 ms. One deadline covers a try and every redirect hop of it. `0` disables the
   * timeout.
   * @default 30000
   */
  readonly timeout?: Duration.Input
  /**
   * Time allowed for a whole call: every try, the waits between them and your code the request
   * waits on (ky 2's `totalTimeout`). Milliseconds or any `Duration`; `0` or absent: no limit.
   * @default undefined
   * @example
   * ```ts
   * createSvc(url, { timeout: 2_000, totalTimeout: 5_000 }) // at most 5 s per call, retries included
   * ```
   */
  readonly totalTimeout?: Duration.Input
  /**
   * Replaces the default retry timing and count (exponential backoff from 300 ms, ±20 % jitter,
   * each wait capped at 30 s, `retryAttempts` times). Which failures are retried stays the same,
   * and a `Retry-After` header still sets the wait.
   * @default exponential backoff, `retryAttempts` times
   */
  readonly retrySchedule?: Schedule.Schedule<unknown, SvcError>
  /**
   * Observes the final request config, after the request interceptors, just before it is sent.
   * What it returns is ignored (change requests with `addRequestInterceptor`); a throw or
   * rejection ends the request with `INTERCEPTOR_ERROR`. Sync or async; bounded by the timeout.
   * @default undefined
   */
  readonly onRequest?: (config: RequestConfig) => void
  /**
   * Observes every response the server gave (successes and HTTP failures), after the response
   * interceptors and schema decoding. A throw or rejection turns the request into an
   * `INTERCEPTOR_ERROR` failure.
   * @default undefined
   */
  readonly onResponse?: (response: ApiResponse<unknown>) => unknown
  /**
   * Receives every failure as an `Error` (the tagged `SvcError`s, and storage or `getSessionId`
   * failures). Its own throws are ignored.
   * @default undefined
   */
  readonly onError?: (error: Error) => unknown
  /**
   * Sends every request with this fetch-compatible function instead of the runtime's default
   * transport (undici on Node, `fetch` elsewhere), as in ky: a mock, a proxy, an instrumented fetch.
   * @default the runtime's transport
   */
  readonly fetch?: FetchFunction
  /**
   * How response bodies are read; a request's `responseType` wins.
   * @default "auto"
   */
  readonly responseType?: ResponseType
  /**
   * The largest response body accepted, in bytes after decompression; a larger one stops the read
   * and fails with `RESPONSE_TOO_LARGE`. `Infinity` lifts the limit.
   * @default 67108864 (64 MiB)
   */
  readonly maxResponseBytes?: number
  /**
   * Whether redirects are followed; a request's `redirect` wins.
   * @default "follow"
   */
  readonly redirect?: RedirectMode
  /**
   * Whether the Effect API's requests carry the trace context of their span (W3C `traceparent`
   * and `b3`) to the base URL's origin; other origins never get it. Turn it off when the server
   * does not list those headers in `Access-Control-Allow-Headers` (a browser's CORS preflight
   * refuses them) or should not learn your trace ids. The spans themselves stay: turn them off
   * with Effect's own switch, `Effect.withTracerEnabled(false)`. The Promise facade records and
   * sends no trace context at all.
   * @default true
   * @example
   * ```ts
   * SvcClient.layerDefault(url, { tracerPropagation: false })
   * ```
   */
  readonly tracerPropagation?: boolean
}

/**
 * Options of one request.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestOptions<A = unknown, I = A> {
  /**
   * Query parameters appended to the URL.
   * @default undefined
   */
  readonly params?: RequestParams
  /**
   * Headers for this request; they win over the client's headers and the session header. A
   * header whose value is `undefined` or `null` is left out, as in `params`.
   * @default undefined
   */
  readonly headers?: Readonly<Record<string, string | null | undefined>>
  /**
   * Time allowed for each try, overriding the client's: milliseconds or a `Duration`; `0`: none.
   * @default the client's `timeout`
   */
  readonly timeout?: Duration.Input
  /**
   * Time allowed for this whole call, retries and waits included, overriding the client's.
   * @default the client's `totalTimeout`
   */
  readonly totalTimeout?: Duration.Input
  /**
   * Retries for this request, overriding the client's `retryAttempts` (`0` turns retry off for
   * this call, like ky's `retry: 0`). Ignored when `retrySchedule` is given.
   * @default the client's
   */
  readonly retryAttempts?: number
  /**
   * Whether this request carries the session header; wins over the client's setting.
   * @default the client's `includeSession`
   */
  readonly includeSession?: boolean
  /**
   * Aborts the request at once, in whatever phase it is (session lookup, interceptors, sending,
   * reading, waiting to retry): code `ABORTED`, never retried.
   * @default undefined
   */
  readonly signal?: AbortSignal
  /**
   * Decodes `data` of a 2xx response, with an `effect/Schema` or a Standard Schema v1 validator
   * (zod, valibot…); a mismatch fails with `DecodeError` (code `DECODE_ERROR`, the real status) —
   * the one case where a 2xx is not a success.
   * @default undefined
   */
  readonly schema?: Schema.Codec<A, I> | StandardSchemaV1<A>
  /**
   * Replaces the client's retry schedule for this request.
   * @default the client's schedule
   */
  readonly retrySchedule?: Schedule.Schedule<unknown, SvcError>
  /**
   * How this response's body is read.
   * @default the client's `responseType`
   */
  readonly responseType?: ResponseType
  /**
   * Whether this request follows redirects.
   * @default the client's `redirect`
   */
  readonly redirect?: RedirectMode
}

/**
 * The two faces of a client: `"effect"`, the Effect API; `"promise"`, the Promise facade.
 *
 * @since 0.1.0
 * @category models
 */
export type ClientFace = "effect" | "promise"

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
 * The Effect API's type where `F` is `"effect"`, the facade's otherwise.
 *
 * @since 0.1.0
 * @category models
 */
export type OnFace<F extends ClientFace, OnEffect, OnPromise> = F extends "effect"
  ? OnEffect
  : OnPromise

/**
 * The client's surface, declared once for both faces: {@link SvcClientService} (the Effect API)
 * is `ClientSurface<"effect">`, {@link SvcClientFacade} (the Promise facade) is
 * `ClientSurface<"promise">`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientSurface<F extends ClientFace> {
  readonly get: <A = unknown, I = A>(
    endpoint: string,
    options?: RequestOptions<A, I>
  ) => RequestResult<F, A>
  readonly delete: <A = unknown, I = A>(
    endpoint: string,
    options?: RequestOptions<A, I>
  ) => RequestResult<F, A>
  readonly post: <A = unknown, I = A>(
    endpoint: string,
    body?: unknown,
    options?: RequestOptions<A, I>
  ) => RequestResult<F, A>
  readonly put: <A = unknown, I = A>(
    endpoint: string,
    body?: unknown,
    options?: RequestOptions<A, I>
  ) => RequestResult<F, A>
  readonly patch: <A = unknown, I = A>(
    endpoint: string,
    body?: unknown,
    options?: RequestOptions<A, I>
  ) => RequestResult<F, A>
  /** A query builder whose `get`/`post`/… send the request. */
  readonly query: <A = unknown>(endpoint: string) => QueryBuilder<RequestResult<F, A>>
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
  readonly getConfig: () => SvcConfig
}

/**
 * The Effect API. Requests succeed with an {@link ApiSuccess} — `success: true`, and `data: A`,
 * the schema's output when `options.schema` is given — or fail with a {@link SvcError}.
 *
 * @since 0.1.0
 * @category models
 */
export interface SvcClientService extends ClientSurface<"effect"> {}

/**
 * The Effect service and, as a class, the Promise facade.
 *
 * - `yield* SvcClient` (with {@link SvcClient.layer}) gives the Effect API.
 * - `new SvcClient(baseUrl, config?)` gives the facade: every request resolves to an
 *   `ApiResponse` and never rejects. It runs the Effect program over undici on Node and `fetch`
 *   elsewhere.
 *
 * `getSessionId()` and `hasSession()` resolve asynchronously (storage is async).
 * `setSessionId(id)` throws a `TypeError` for an invalid id (empty, whitespace, over 512
 * characters); it takes effect at once, and the returned promise settles once the id is stored.
 *
 * @example
 * ```ts
 * import { createSvc } from "svc-sdk"
 * const svc = createSvc("https://api.example.com/v1", { timeout: 5_000 })
 * const users = await svc.get<Array<{ id: string }>>("/users", { params: { page: 1 } })
 * if (users.success) console.log(users.data)
 * ```
 *
 * @since 0.1.0
 * @category services
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor sets every member of the merged SvcClientFacade, from facade.make, which the compiler checks against it
export class SvcClient extends /*#__PURE__*/ Context.Service<SvcClient, SvcClientService>()(
  "svc-sdk/SvcClient"
) {
  /**
   * The Effect API over the `HttpClient` in context.
   *
   * @since 0.1.0
   * @category constructors
   */
  static readonly make = (
    baseUrl: string,
    config?: SvcConfig
  ): Effect.Effect<SvcClientService, never, HttpClient.HttpClient> =>
    viaHttpClient.make(baseUrl, config)

  /**
   * Provides {@link SvcClient}; the transport is the `HttpClient` you provide.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layer = (
    baseUrl: string,
    config?: SvcConfig
  ): Layer.Layer<SvcClient, never, HttpClient.HttpClient> =>
    Layer.effect(SvcClient, viaHttpClient.make(baseUrl, config))

  /**
   * Provides {@link SvcClient} over the facade's own transport — undici through its global
   * dispatcher on Node, `fetch` elsewhere (or `config.fetch`) — with no `HttpClient` needed: the
   * fast path for Effect programs. Bad arguments throw at the call, as with {@link SvcClient.layer}.
   *
   * Every call is one client span (`GET`, as Effect 4's own `HttpClient` names them), a child of the caller's span, with
   * OpenTelemetry's HTTP client attributes, and is recorded in the `http.client.request.duration`
   * histogram (seconds), on this layer as on {@link SvcClient.layer}. Spans go wherever Effect's
   * tracer sends them (`@effect/opentelemetry`); `Effect.withTracerEnabled(false)` turns them off,
   * `tracerPropagation: false` keeps them but sends no `traceparent`/`b3`.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { SvcClient } from "svc-sdk"
   *
   * const program = Effect.flatMap(SvcClient, (client) => client.get("/health"))
   * Effect.runPromise(program.pipe(Effect.provide(SvcClient.layerDefault("http://127.0.0.1:3000"))))
   * ```
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerDefault = (baseUrl: string, config?: SvcConfig): Layer.Layer<SvcClient> =>
    Layer.succeed(SvcClient, service.fromDefaultTransport(baseUrl, config))

  /**
   * {@link SvcClient.layerDefault} with its settings read from `Config`: a base URL that is not an
   * absolute http(s) URL, or a bad setting, is a `ConfigError`, not a defect.
   *
   * @example
   * ```ts
   * import { Config } from "effect"
   * import { SvcClient } from "svc-sdk"
   *
   * const Api = SvcClient.layerConfig(
   *   Config.all({
   *     baseUrl: Config.string("API_URL"),
   *     timeout: Config.integer("API_TIMEOUT_MS").pipe(Config.withDefault(10_000))
   *   })
   * )
   * ```
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerConfig = (
    config: Config.Config<{ readonly baseUrl: string } & SvcConfig>
  ): Layer.Layer<SvcClient, Config.ConfigError> =>
    Layer.effect(
      SvcClient,
      Effect.flatMap(config, ({ baseUrl, ...settings }) => {
        try {
          return Effect.succeed(service.fromDefaultTransport(baseUrl, settings))
        } catch (cause) {
          // effect/Config and effect/Schema load only for this error (see #onDemand)
          return Effect.flatMap(Effect.promise(loadConfigError), (make) =>
            Effect.fail(make(cause instanceof Error ? cause.message : String(cause)))
          )
        }
      })
    )

  /**
   * The Promise facade. Throws a `TypeError` when `baseUrl` is not an absolute http(s) URL, and
   * a `TypeError`/`RangeError` for a bad config value.
   */
  constructor(baseUrl: string, config?: SvcConfig) {
    super(undefined as never)
    facade.mark(Object.assign(this, facade.make(baseUrl, config)))
  }

  /** `createSvc`'s facades are instances too, though made without the class. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return facade.isFacade(value)
  }
}

/**
 * The Promise facade's methods: each runs the {@link SvcClientService} program of the same name and
 * resolves, never rejects. `getSessionId()` and `hasSession()` resolve asynchronously (storage is
 * async). `setSessionId(id)` throws a `TypeError` for an invalid id; it takes effect at once, and
 * the returned promise settles once the id is stored. `setHeader`, `removeHeader` and the
 * `add*Interceptor` methods change the client at once and throw a `TypeError` for bad input.
 *
 * @since 0.1.0
 * @category models
 */
export interface SvcClientFacade extends ClientSurface<"promise"> {}

/**
 * An instance of {@link SvcClient} is the Promise facade.
 *
 * @since 0.1.0
 * @category models
 */
export interface SvcClient extends SvcClientFacade {}

/**
 * The Promise facade, as `new SvcClient(baseUrl, config)` gives it (`instanceof SvcClient` holds).
 *
 * @since 0.1.0
 * @category constructors
 */
// made without the class, so that an app using only the facade bundles none of its Effect layers;
// the class adds no runtime member to a facade (its instance type's other fields are type-level)
export const createSvc = (baseUrl: string, config?: SvcConfig): SvcClient =>
  facade.make(baseUrl, config) as SvcClient
