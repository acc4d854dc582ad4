/**
 * The client's configuration and request options, for either Effect line: what is not Effect's
 * own (each line fills in its `Duration` input, `Schedule` and `Schema` types).
 */

import type { StorageAdapter } from "../core/storage.js"
import type { ApiFailure, ApiResponse } from "./ApiResponse.js"
import type { HttpMethod } from "./http.js"
import type { ProgressCallback } from "./progress.js"
import type { RedirectMode, RequestConfig } from "./request.js"
import type { ResponseType } from "./response.js"
import type { FetchFunction } from "./transport.fetch.js"
import type { Params } from "./url.js"

/**
 * `refreshSession` as a face calls it: with the 401's `ApiFailure` and the client in a form whose
 * own requests are never refreshed; it answers the new id, or `null`/`undefined` for none. Each
 * face types its own: the Promise facade's answers a value or a promise and gets a facade, the
 * Effect API's answers an `Effect` and gets the Effect API.
 *
 * @since 0.1.0
 * @category models
 */
export type RefreshSessionOf<Client, Answer> = (failed: ApiFailure, client: Client) => Answer

/**
 * Client configuration, written once for both Effect lines: each line's `SvcConfig` is this with
 * its own `Duration` input, `Schedule` and `refreshSession` types. Checked once at construction:
 * bad values throw a `TypeError` or `RangeError` naming the option.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConfigOf<DurationInput, RetrySchedule, RefreshSession = never> {
  /**
   * A session id sent with every request to the base URL's origin.
   * @default undefined
   */
  readonly sessionId?: string | undefined
  /**
   * Asked for the session id before each request when neither `setSessionId` nor `sessionId`
   * gave one. Sync or async; a throw or rejection means no session (and goes to `onError`).
   * @default undefined
   */
  readonly getSessionId?:
    | (() => string | null | undefined | Promise<string | null | undefined>)
    | undefined
  /**
   * Renews an expired session. Called when a response from the base URL's origin is 401 and the
   * request carried the client's session, with that 401 (`failed`) and `client`: this client in a
   * form whose own requests are never refreshed — call the refresh endpoint with it. Answer the
   * new id, or `null`/`undefined` when the session cannot be renewed. On the Promise facade it
   * answers a value or a promise and `client` is a facade; on the Effect API it answers an
   * `Effect` and `client` is the Effect API.
   *
   * - One refresh at a time: however many requests get a 401 at once, they all wait for one
   *   refresh, then each is sent once more with the new id (set with `setSessionId` first, so
   *   storage gets it). A 401 that answers an id a refresh has already replaced is sent once more
   *   with the current id, without refreshing again; after `clearSession()` it stays a 401.
   * - When the refresh answers no id, fails, or takes longer than the request's `timeout`, the
   *   session is cleared (`clearSession()`), each waiting request resolves with its own 401, and
   *   `onError` receives one `Error` for the refresh.
   * - A request is refreshed at most once; the re-send does not count against `retryAttempts`;
   *   `totalTimeout` covers the wait. Response interceptors, `onResponse` and `onError` see only
   *   the request's final outcome.
   * - Call the refresh endpoint with `client`, not with the client being configured: a request of
   *   the latter that gets a 401 while the refresh runs waits for that refresh.
   * @default undefined (a 401 is an ordinary `HTTP_ERROR`)
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { createSvc, SvcClient } from "svc-sdk"
   *
   * const api = createSvc("https://api.example.com", {
   *   refreshSession: async (_failed, client) => {
   *     const renewed = await client.post<{ sessionId: string }>("/session/refresh")
   *     return renewed.success ? renewed.data.sessionId : null
   *   }
   * })
   * // the Effect API: answer an Effect
   * SvcClient.layerDefault("https://api.example.com", {
   *   refreshSession: (_failed, client) =>
   *     client.post<{ sessionId: string }>("/session/refresh").pipe(
   *       Effect.map((renewed) => renewed.data.sessionId)
   *     )
   * })
   * ```
   */
  readonly refreshSession?: RefreshSession | undefined
  /**
   * Whether requests carry the session header. A request's `includeSession` wins.
   * @default true
   */
  readonly includeSession?: boolean | undefined
  /**
   * The header that carries the session id.
   * @default "X-Session-Id"
   */
  readonly sessionHeader?: string | undefined
  /**
   * Where session ids are read from and `setSessionId` persists them. When absent, the runtime's
   * storage is detected once (`detectStorage()`); on a server there is none.
   * @default detected
   */
  readonly storage?: StorageAdapter | undefined
  /**
   * Headers sent with every request; per-request headers win (names are case-insensitive). A
   * header whose value is `undefined` or `null` is left out. `Authorization`, `Cookie` and
   * `Proxy-Authorization` only ever go to the base URL's origin.
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string | null | undefined>> | undefined
  /**
   * Retries on network errors, timeouts and 408/425/429/500/502/503/504, for GET, PUT, DELETE,
   * HEAD, OPTIONS, and POST/PATCH with an `Idempotency-Key` header. Ignored when `retrySchedule`
   * is given.
   * @default 2
   */
  readonly retryAttempts?: number | undefined
  /**
   * Time allowed for each try, and for each piece of your code a request waits on (the session
   * lookup, interceptors, `onRequest`, `onResponse`): milliseconds, or any `Duration`, at most
   * 2 147 483 647 ms. One deadline covers a try and every redirect hop of it. `0` disables the
   * timeout.
   * @default 30000
   */
  readonly timeout?: DurationInput | undefined
  /**
   * Time allowed for a whole call: every try, the waits between them and your code the request
   * waits on (ky 2's `totalTimeout`). Milliseconds or any `Duration`; `0` or absent: no limit.
   * @default undefined
   * @example
   * ```ts
   * import { createSvc } from "svc-sdk"
   *
   * // at most 5 s per call, retries included
   * createSvc("https://api.example.com", { timeout: 2_000, totalTimeout: 5_000 })
   * ```
   */
  readonly totalTimeout?: DurationInput | undefined
  /**
   * Replaces the default retry timing and count (exponential backoff from 300 ms, ±20 % jitter,
   * each wait capped at 30 s, `retryAttempts` times). Which failures are retried stays the same,
   * and a `Retry-After` header still sets the wait.
   * @default exponential backoff, `retryAttempts` times
   */
  readonly retrySchedule?: RetrySchedule | undefined
  /**
   * Observes the final request config, after the request interceptors, just before it is sent.
   * What it returns is ignored (change requests with `addRequestInterceptor`); a throw or
   * rejection ends the request with `INTERCEPTOR_ERROR`. Sync or async; bounded by the timeout.
   * @default undefined
   */
  readonly onRequest?: ((config: RequestConfig) => void) | undefined
  /**
   * Observes every response the server gave (successes and HTTP failures), after the response
   * interceptors and schema decoding. A throw or rejection turns the request into an
   * `INTERCEPTOR_ERROR` failure.
   * @default undefined
   */
  readonly onResponse?: ((response: ApiResponse<unknown>) => unknown) | undefined
  /**
   * Receives every failure as an `Error` (the tagged `SvcError`s, and storage or `getSessionId`
   * failures). Its own throws are ignored.
   * @default undefined
   */
  readonly onError?: ((error: Error) => unknown) | undefined
  /**
   * Called as a response body arrives, with `{ loaded, total?, progress? }`: `loaded` counts the
   * decoded bytes so far; `total` is `Content-Length`, absent when the body is content-encoded or
   * has none; `progress` is `loaded / total` in [0, 1] when `total` is known. The last call has the
   * body's full length (an empty body gets one call, `loaded: 0`). For `stream` and `sse` it
   * follows what you read. A throw is ignored; no call comes after the request ended. A request's
   * `onDownloadProgress` replaces this one.
   * @default undefined
   */
  readonly onDownloadProgress?: ProgressCallback | undefined
  /**
   * Called as a request body is sent, with `{ loaded, total, progress }` (`total`: the body's
   * length): chunk by chunk on undici (Node's default transport), once when it has been sent on
   * `fetch` and an `HttpClient`. Requests without a body make no call. A throw is ignored; no call
   * comes after the request ended. A request's `onUploadProgress` replaces this one.
   * @default undefined
   */
  readonly onUploadProgress?: ProgressCallback | undefined
  /**
   * Sends every request with this fetch-compatible function instead of the runtime's default
   * transport (undici on Node, `fetch` elsewhere), as in ky: a mock, a proxy, an instrumented fetch.
   * @default the runtime's transport
   */
  readonly fetch?: FetchFunction | undefined
  /**
   * How response bodies are read; a request's `responseType` wins.
   * @default "auto"
   */
  readonly responseType?: ResponseType | undefined
  /**
   * The largest response body accepted, in bytes after decompression; a larger one stops the read
   * and fails with `RESPONSE_TOO_LARGE`. `Infinity` lifts the limit.
   * @default 67108864 (64 MiB)
   */
  readonly maxResponseBytes?: number | undefined
  /**
   * Whether redirects are followed; a request's `redirect` wins.
   * @default "follow"
   */
  readonly redirect?: RedirectMode | undefined
  /**
   * The longest silence allowed while a body is read, once the headers are in (an `sse` comment
   * counts: it is a heartbeat), in milliseconds or a `Duration`; a request's `idleTimeout` wins. A
   * call that reads the body whole then fails with `TIMEOUT` (and is retried as a timeout is); a
   * `stream` errors with an `Error` whose `code` is `"TIMEOUT"`; an `sse` stream takes it as a
   * dropped connection and reconnects.
   * @default undefined (no limit)
   */
  readonly idleTimeout?: DurationInput | undefined
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
   * import { SvcClient } from "svc-sdk"
   *
   * SvcClient.layerDefault("https://api.example.com", { tracerPropagation: false })
   * ```
   */
  readonly tracerPropagation?: boolean | undefined
}

/**
 * Options of one request, written once for both Effect lines: each line's `RequestOptions` is this
 * with its own `Schema`, `Duration` input and `Schedule` types.
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestOptionsOf<Schema, DurationInput, RetrySchedule> {
  /**
   * Query parameters appended to the URL.
   * @default undefined
   */
  readonly params?: Params | undefined
  /**
   * Headers for this request; they win over the client's headers and the session header. A
   * header whose value is `undefined` or `null` is left out, as in `params`.
   * @default undefined
   */
  readonly headers?: Readonly<Record<string, string | null | undefined>> | undefined
  /**
   * Time allowed for each try, overriding the client's: milliseconds or a `Duration`; `0`: none.
   * @default the client's `timeout`
   */
  readonly timeout?: DurationInput | undefined
  /**
   * Time allowed for this whole call, retries and waits included, overriding the client's.
   * @default the client's `totalTimeout`
   */
  readonly totalTimeout?: DurationInput | undefined
  /**
   * The longest silence allowed while the body is read, overriding the client's `idleTimeout`:
   * milliseconds or a `Duration`; `0`: none.
   * @default the client's `idleTimeout`
   */
  readonly idleTimeout?: DurationInput | undefined
  /**
   * Retries for this request, overriding the client's `retryAttempts` (`0` turns retry off for
   * this call, like ky's `retry: 0`). Ignored when `retrySchedule` is given.
   * @default the client's
   */
  readonly retryAttempts?: number | undefined
  /**
   * Whether this request carries the session header; wins over the client's setting.
   * @default the client's `includeSession`
   */
  readonly includeSession?: boolean | undefined
  /**
   * Aborts the request at once, in whatever phase it is (session lookup, interceptors, sending,
   * reading, waiting to retry): code `ABORTED`, never retried.
   * @default undefined
   */
  readonly signal?: AbortSignal | undefined
  /**
   * Decodes `data` of a 2xx response, with an `effect/Schema` or a Standard Schema v1 validator
   * (zod, valibot…); a mismatch fails with `DecodeError` (code `DECODE_ERROR`, the real status) —
   * the one case where a 2xx is not a success.
   * @default undefined
   */
  readonly schema?: Schema | undefined
  /**
   * Replaces the client's retry schedule for this request.
   * @default the client's schedule
   */
  readonly retrySchedule?: RetrySchedule | undefined
  /**
   * How this response's body is read.
   * @default the client's `responseType`
   */
  readonly responseType?: ResponseType | undefined
  /**
   * Whether this request follows redirects.
   * @default the client's `redirect`
   */
  readonly redirect?: RedirectMode | undefined
  /**
   * Called as this response's body arrives (see the client's `onDownloadProgress`); replaces
   * the client's.
   * @default the client's `onDownloadProgress`
   * @example
   * ```ts
   * import { createSvc } from "svc-sdk"
   *
   * const api = createSvc("https://api.example.com")
   * api.get("/reports/2026.csv", {
   *   responseType: "bytes",
   *   onDownloadProgress: ({ loaded, progress }) =>
   *     console.log(progress === undefined ? `${loaded} bytes` : `${Math.round(progress * 100)} %`)
   * })
   * ```
   */
  readonly onDownloadProgress?: ProgressCallback | undefined
  /**
   * Called as this request's body is sent (see the client's `onUploadProgress`); replaces the
   * client's.
   * @default the client's `onUploadProgress`
   */
  readonly onUploadProgress?: ProgressCallback | undefined
}

/**
 * Options of `stream`, written once for both Effect lines: every request option but `schema` and
 * `responseType` (the body is read as bytes), and the request's `method` and `body`.
 *
 * @since 0.1.0
 * @category models
 */
export interface StreamOptionsOf<DurationInput, RetrySchedule>
  extends Omit<RequestOptionsOf<never, DurationInput, RetrySchedule>, "schema" | "responseType"> {
  /**
   * The request's method.
   * @default "GET"
   */
  readonly method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | undefined
  /**
   * The request's body, sent as `post`'s is: plain objects and arrays as JSON, strings, forms,
   * `Blob`s and bytes as they are.
   * @default undefined
   */
  readonly body?: unknown
}

/**
 * How an `sse` stream reconnects: `false`, never (the stream ends with its connection); else after
 * `delay` (unless the server sent `retry:`), at most `attempts` failed reconnects in a row.
 *
 * @since 0.1.0
 * @category models
 */
export type ReconnectOf<DurationInput> =
  | false
  | {
      /**
       * Failed reconnects in a row before the stream ends with the last failure; every
       * successful connection starts the count again. `0` allows none: no reconnect is tried, as
       * with `false`.
       * @default Infinity
       */
      readonly attempts?: number | undefined
      /**
       * The wait before a reconnect, unless the server's `retry:` field said otherwise.
       * @default 3000
       */
      readonly delay?: DurationInput | undefined
    }

/**
 * Options of `sse`, written once for both Effect lines: `stream`'s, and `schema` (each event's
 * `data` is `JSON.parse`d and decoded), `lastEventId` and `reconnect`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SseOptionsOf<Schema, DurationInput, RetrySchedule>
  extends StreamOptionsOf<DurationInput, RetrySchedule> {
  /**
   * Decodes each event's `data`, parsed as JSON, with an `effect/Schema` or a Standard Schema;
   * a failure ends the stream with `DECODE_ERROR`.
   * @default undefined (`data` is the event's text)
   */
  readonly schema?: Schema | undefined
  /**
   * The stream's last event id before the server sets one: sent as `Last-Event-ID` (its UTF-8
   * bytes) on the first request and on reconnects until the server sends an `id:`. It may not hold
   * a control character other than tab (`INVALID_REQUEST`).
   * @default ""
   */
  readonly lastEventId?: string | undefined
  /**
   * How the stream reconnects when the connection drops or the server ends the body.
   * @default { attempts: Infinity, delay: 3000 }
   */
  readonly reconnect?: ReconnectOf<DurationInput> | undefined
}

/** The methods `stream` and `sse` send. */
export type StreamMethod = Extract<HttpMethod, "GET" | "POST" | "PUT" | "PATCH" | "DELETE">
