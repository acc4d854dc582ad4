/**
 * The client: an Effect service (`yield* SvcClient`) and, with `new SvcClient(url)` or
 * `createSvc(url)`, a Promise facade that runs the same program and never rejects.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import { loadAdapter } from "#httpClientAdapter"
import { effectApi } from "../../common/effectApi.js"
import * as facade from "../../common/facade.js"
import type {
  ClientControls,
  ClientFace,
  OnFace,
  RequestResult,
  RequestResultKind,
  SseResult,
  StreamResult
} from "../../common/service.js"
import type { ApiSuccess } from "../../core/ApiResponse.js"
import type {
  ConfigOf,
  ReconnectOf,
  RefreshSessionOf,
  RequestOptionsOf,
  SseOptionsOf,
  StreamOptionsOf
} from "../../core/config.js"
import { messageOf } from "../../core/describe.js"
import type { HttpMethod } from "../../core/http.js"
import type { Progress, ProgressCallback } from "../../core/progress.js"
import type {
  RedirectMode,
  RequestConfig,
  RequestInterceptor,
  ResponseInterceptor
} from "../../core/request.js"
import type { ResponseType } from "../../core/response.js"
import type { EventStream, SseEvent } from "../../core/sse.js"
import type { StandardSchemaV1 } from "../../core/standardSchema.js"
import type { FetchFunction } from "../../core/transport.fetch.js"
import type { Params } from "../../core/url.js"
import type { QueryBuilder } from "../../Query/index.js"
import * as dialect from "../internal/dialect.js"
import type { SvcError } from "./SvcError.js"

export type {
  ClientControls,
  ClientFace,
  EventStream,
  FetchFunction,
  HttpMethod,
  OnFace,
  Progress,
  ProgressCallback,
  RedirectMode,
  RequestConfig,
  RequestInterceptor,
  RequestResult,
  RequestResultKind,
  ResponseInterceptor,
  ResponseType,
  SseEvent,
  SseResult,
  StandardSchemaV1,
  StreamResult
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
 * Client configuration, checked once at construction (a bad value throws, naming the option);
 * each option is described on its property. `createSvc` takes `SvcConfig<"promise">`, the
 * layers `SvcConfig<"effect">`: they differ in {@link RefreshSession} alone.
 *
 * @since 0.1.0
 * @category models
 */
export interface SvcConfig<F extends ClientFace = never>
  extends ConfigOf<
    Duration.DurationInput,
    Schedule.Schedule<unknown, SvcError>,
    RefreshSession<F>
  > {}

/**
 * `config.refreshSession` on each face: it gets the failed 401 and the client (whose own requests
 * are never refreshed) and answers the new session id or `null`/`undefined` — as an `Effect` on the
 * Effect API, as a value or a promise on the facade.
 *
 * @since 0.1.0
 * @category models
 */
export type RefreshSession<F extends ClientFace> = OnFace<
  F,
  RefreshSessionOf<SvcClientService, Effect.Effect<string | null | undefined, unknown>>,
  RefreshSessionOf<SvcClientFacade, string | null | undefined | Promise<string | null | undefined>>
>

/**
 * An `effect/Schema` that decodes to `A` and needs no services, whatever it decodes from: what
 * `options.schema` takes when `A` is given (`get<Date>(url, { schema: Schema.Date })`), where
 * `Schema.Schema<A, I>` would hold `I` to `A`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SchemaDecodingTo<A> {
  readonly [Schema.TypeId]: unknown
  readonly Type: A
  readonly Context: never
}

/**
 * Options of one request. Each option is described on its property. `schema` takes any
 * `effect/Schema` that decodes to `A` and needs no services — whatever it decodes from, also when
 * `A` is given (`get<Date>(url, { schema: Schema.Date })`) — or a Standard Schema.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestOptions<A = unknown, I = A>
  extends RequestOptionsOf<
    Schema.Schema<A, I, never> | SchemaDecodingTo<A> | StandardSchemaV1<A>,
    Duration.DurationInput,
    Schedule.Schedule<unknown, SvcError>
  > {}

/**
 * Options of `stream`: every request option but `schema` and `responseType`, and `method`
 * (default `GET`), `body` and `idleTimeout`. Each option is described on its property.
 *
 * @since 0.1.0
 * @category models
 */
export interface StreamOptions
  extends StreamOptionsOf<Duration.DurationInput, Schedule.Schedule<unknown, SvcError>> {}

/**
 * Options of `sse`: those of `stream`, and `schema` (each event's `data` parsed as JSON and
 * decoded), `lastEventId` and `reconnect`. Each option is described on its property.
 *
 * @since 0.1.0
 * @category models
 */
export interface SseOptions<A = string, I = A>
  extends SseOptionsOf<
    Schema.Schema<A, I, never> | SchemaDecodingTo<A> | StandardSchemaV1<A>,
    Duration.DurationInput,
    Schedule.Schedule<unknown, SvcError>
  > {}

/**
 * How an `sse` stream reconnects (`reconnect` of {@link SseOptions}): `false`, or
 * `{ attempts?, delay? }`.
 *
 * @since 0.1.0
 * @category models
 */
export type Reconnect = ReconnectOf<Duration.DurationInput>

/**
 * The client's surface, declared once for both faces: {@link SvcClientService} (the Effect API)
 * is `ClientSurface<"effect">`, {@link SvcClientFacade} (the Promise facade) is
 * `ClientSurface<"promise">`. Its session, header and interceptor methods are the
 * {@link ClientControls} both Effect lines share.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientSurface<F extends ClientFace> extends ClientControls<F> {
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
  /**
   * The response body as it arrives (SPEC 4.8): the request runs the whole pipeline (session,
   * interceptors, redirects, retries before the body). The facade resolves once the headers are
   * in, `data` the body as a web `ReadableStream` (decompressed, not bounded by
   * `maxResponseBytes`); the Effect API gives a `Stream` of its chunks, sent when it runs, closed
   * when interrupted. A non-2xx is a failure, as for any request.
   */
  readonly stream: (endpoint: string, options?: StreamOptions) => StreamResult<F>
  /**
   * Server-sent events (SPEC 4.8), reconnecting as EventSource does (the server's `retry:`, else
   * `reconnect.delay`; `Last-Event-ID`). The facade resolves once the first connection's headers
   * are in, `data` an {@link EventStream}; the Effect API gives a `Stream` of the events.
   */
  readonly sse: <A = string, I = A>(endpoint: string, options?: SseOptions<A, I>) => SseResult<F, A>
  /**
   * A query builder whose `get`/`post`/… send the request (`get<T>()` names the data type).
   */
  readonly query: <A = unknown>(
    endpoint: string
  ) => QueryBuilder<RequestResult<F, A>, RequestResultKind<F>>
  readonly getConfig: () => SvcConfig<F>
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
 * `@effect/platform`'s `HttpClient` tag, by its key: the same service, without loading the platform
 * on Node before a layer needs it.
 */
const HttpClientService = /*#__PURE__*/ Context.GenericTag<HttpClient.HttpClient>(
  "@effect/platform/HttpClient"
)

/** The Effect API: each call a span, its duration recorded. */
const api = /*#__PURE__*/ effectApi(dialect.client, dialect.tracing, dialect.streams)

/** The Effect API over the facade's transport. */
const fromDefaultTransport = (baseUrl: string, config?: SvcConfig<"effect">) =>
  api.fromDefaultTransport(baseUrl, config) as unknown as Effect.Effect<SvcClientService>

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
 * import { createSvc } from "svc-sdk/v3"
 * const svc = createSvc("https://api.example.com/v1", { timeout: 5_000 })
 * const users = await svc.get<Array<{ id: string }>>("/users", { params: { page: 1 } })
 * if (users.success) console.log(users.data)
 * ```
 *
 * @since 0.1.0
 * @category services
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor sets every member of the merged SvcClientFacade, from facade.make, which the compiler checks against it
export class SvcClient extends /*#__PURE__*/ Context.Tag("svc-sdk/SvcClient")<
  SvcClient,
  SvcClientService
>() {
  /**
   * The Effect API over the `HttpClient` in context.
   *
   * @since 0.1.0
   * @category constructors
   */
  static readonly make = (
    baseUrl: string,
    config?: SvcConfig<"effect">
  ): Effect.Effect<SvcClientService, never, HttpClient.HttpClient> =>
    api.fromHttpClient(baseUrl, config, HttpClientService, loadAdapter) as Effect.Effect<
      SvcClientService,
      never,
      HttpClient.HttpClient
    >

  /**
   * Provides {@link SvcClient}; the transport is the `HttpClient` you provide.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layer = (
    baseUrl: string,
    config?: SvcConfig<"effect">
  ): Layer.Layer<SvcClient, never, HttpClient.HttpClient> =>
    Layer.effect(SvcClient, SvcClient.make(baseUrl, config))

  /**
   * Provides {@link SvcClient} over the facade's own transport — undici through its global
   * dispatcher on Node, `fetch` elsewhere (or `config.fetch`) — with no `HttpClient` needed: the
   * fast path for Effect programs. Bad arguments throw at the call, as with {@link SvcClient.layer}.
   *
   * Every call is one client span (`http.client GET`, as `@effect/platform`'s `HttpClient` names them), a child of the caller's span, with
   * OpenTelemetry's HTTP client attributes, and is recorded in the `http.client.request.duration`
   * histogram (seconds), on this layer as on {@link SvcClient.layer}. Spans go wherever Effect's
   * tracer sends them (`@effect/opentelemetry`); `Effect.withTracerEnabled(false)` turns them off,
   * `tracerPropagation: false` keeps them but sends no `traceparent`/`b3`.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { SvcClient } from "svc-sdk/v3"
   *
   * const program = Effect.flatMap(SvcClient, (client) => client.get("/health"))
   * Effect.runPromise(program.pipe(Effect.provide(SvcClient.layerDefault("http://127.0.0.1:3000"))))
   * ```
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerDefault = (
    baseUrl: string,
    config?: SvcConfig<"effect">
  ): Layer.Layer<SvcClient> => Layer.effect(SvcClient, fromDefaultTransport(baseUrl, config))

  /**
   * {@link SvcClient.layerDefault} with its settings read from `Config`: a base URL that is not an
   * absolute http(s) URL, or a bad setting, is a `ConfigError`, not a defect.
   *
   * @example
   * ```ts
   * import { Config } from "effect"
   * import { SvcClient } from "svc-sdk/v3"
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
    config: Config.Config<{ readonly baseUrl: string } & SvcConfig<"effect">>
  ): Layer.Layer<SvcClient, ConfigError.ConfigError> =>
    Layer.effect(
      SvcClient,
      Effect.flatMap(config, ({ baseUrl, ...settings }) =>
        Effect.flatten(
          Effect.try({
            try: () => fromDefaultTransport(baseUrl, settings),
            catch: (cause) => ConfigError.InvalidData([], messageOf(cause))
          })
        )
      )
    )

  /**
   * The Promise facade. Throws a `TypeError` when `baseUrl` is not an absolute http(s) URL, and
   * a `TypeError`/`RangeError` for a bad config value.
   */
  constructor(baseUrl: string, config?: SvcConfig<"promise">) {
    super(undefined as never)
    facade.mark(Object.assign(this, facade.make(dialect.client, baseUrl, config)))
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
export const createSvc = (baseUrl: string, config?: SvcConfig<"promise">): SvcClient =>
  facade.make(dialect.client, baseUrl, config) as unknown as SvcClient
