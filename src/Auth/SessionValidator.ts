/**
 * The service that tells whether a session id is valid, and its constructors.
 *
 * @since 0.1.0
 */

import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { HttpClient } from "effect/http"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as httpValidator from "./internal/httpValidator.js"
import * as validators from "./internal/validators.js"
import type { SessionData } from "./SessionData.js"
import type { SessionValidatorUnavailable } from "./SessionValidatorUnavailable.js"

export {
  SessionValidatorUnavailable,
  type SessionValidatorUnavailableReason
} from "./SessionValidatorUnavailable.js"

/**
 * Validates a session id: `Some(session)` when valid, `None` when not, a
 * `SessionValidatorUnavailable` failure when it cannot tell.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionValidatorService {
  readonly validate: (
    id: Redacted.Redacted<string>
  ) => Effect.Effect<Option.Option<SessionData>, SessionValidatorUnavailable>
  /**
   * The answer `validate` would give, when the validator holds it already (a table in memory, a
   * cache hit): `Some(answer)` at once, without running an Effect; `None` when it has to look the
   * id up. Optional: the guards answer from it with no fiber, timer or Effect per request, and
   * call `validate` otherwise. `memory` and `cached` have it.
   */
  readonly known?:
    | ((id: Redacted.Redacted<string>) => Option.Option<Option.Option<SessionData>>)
    | undefined
}

/**
 * The lookup given to {@link SessionValidator.fromPromise}: it receives the raw id (keep it out of
 * your logs) and an `AbortSignal` that fires when the guard gives up (timeout, client gone).
 * `null`/`undefined` means invalid; a rejection or a throw means unavailable.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionLookup = validators.PromiseLookup

/**
 * The sessions of {@link SessionValidator.memory}, keyed by id.
 *
 * @since 0.1.0
 * @category models
 */
export type MemorySessions = validators.MemorySessions

/**
 * Options of {@link SessionValidator.cached}.
 *
 * @since 0.1.0
 * @category models
 */
export interface CacheOptions {
  /** How long a valid session is remembered. */
  readonly ttl: Duration.Input
  /**
   * How long an invalid id is remembered.
   * @default ttl
   */
  readonly negativeTtl?: Duration.Input | undefined
  /**
   * How many ids are remembered at most.
   * @default 10000
   */
  readonly capacity?: number | undefined
}

/**
 * Options of {@link SessionValidator.http}.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpValidatorOptions {
  /** The auth service's session endpoint, an absolute http(s) URL, asked with `GET`. */
  readonly url: string
  /**
   * The header that carries the session id to the auth service.
   * @default "X-Session-Id"
   */
  readonly header?: string | undefined
  /**
   * More headers for every call (an API key of the auth service, say).
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * Time allowed for each call (the guard's own timeout still applies).
   * @default "5 seconds"
   */
  readonly timeout?: Duration.Input | undefined
  /**
   * Retries on network errors, timeouts and 408/425/429/5xx, with the client's backoff.
   * @default 0
   */
  readonly retryAttempts?: number | undefined
}

/**
 * The session validator the guards use. Provide one of its layers:
 *
 * @example
 * ```ts
 * import { SessionValidator } from "svc-sdk/Auth"
 *
 * const FromDb = SessionValidator.fromPromise(async (id) => null)
 * const Fixed = SessionValidator.memory({ "s-1": { user_id: "u1", user_type: "admin" } })
 * const Cached = FromDb.pipe(SessionValidator.cached({ ttl: "1 minute", negativeTtl: "5 seconds" }))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class SessionValidator extends Context.Service<SessionValidator, SessionValidatorService>()(
  "svc-sdk/Auth/SessionValidator"
) {
  /**
   * A validator from a function returning a promise (or a plain value). The answer is decoded with
   * `SessionData`; an answer that does not decode counts as unavailable.
   *
   * @since 0.1.0
   * @category constructors
   */
  static readonly fromPromise = (lookup: SessionLookup): Layer.Layer<SessionValidator> =>
    Layer.succeed(SessionValidator, validators.fromPromise(lookup))

  /**
   * A validator over a fixed table of sessions (a `Map` or an object keyed by id). Throws a
   * `TypeError` at once when an entry is not `SessionData`.
   *
   * @since 0.1.0
   * @category constructors
   */
  static readonly memory = (sessions: MemorySessions): Layer.Layer<SessionValidator> =>
    Layer.succeed(SessionValidator, validators.memory(sessions))

  /**
   * A validator that asks a remote auth service with the svc-sdk client: `GET <url>` with the id in
   * the `X-Session-Id` header. 200 with a `SessionData` body (plain or in an envelope's `data`) →
   * valid; 401/403/404 → invalid; any other status, a network error, a timeout or a body that is not
   * `SessionData` → unavailable. The transport is the `HttpClient` you provide
   * (`NodeHttpClient.layerUndici` of `@effect/platform-node`, `FetchHttpClient.layer` of `effect/http`). Bad options throw at the call.
   *
   * @since 0.1.0
   * @category constructors
   */
  static readonly http = (
    options: HttpValidatorOptions
  ): Layer.Layer<SessionValidator, never, HttpClient.HttpClient> =>
    Layer.effect(SessionValidator, httpValidator.http(httpValidator.httpSettings(options)))

  /**
   * Wraps a validator layer in Effect's `Cache`: a valid session costs one lookup per `ttl`, an
   * invalid one one per `negativeTtl`; unavailable answers are never cached. Bad options throw a
   * `RangeError`/`TypeError` at the call.
   *
   * @since 0.1.0
   * @category combinators
   */
  static readonly cached: {
    (
      options: CacheOptions
    ): <E, R>(self: Layer.Layer<SessionValidator, E, R>) => Layer.Layer<SessionValidator, E, R>
    <E, R>(
      self: Layer.Layer<SessionValidator, E, R>,
      options: CacheOptions
    ): Layer.Layer<SessionValidator, E, R>
  } = ((
    selfOrOptions: Layer.Layer<SessionValidator, unknown, unknown> | CacheOptions,
    options?: CacheOptions
  ) => {
    if (Layer.isLayer(selfOrOptions)) {
      return cachedLayer(selfOrOptions, validators.cacheSettings(options as CacheOptions))
    }
    const settings = validators.cacheSettings(selfOrOptions as CacheOptions)
    return (self: Layer.Layer<SessionValidator, unknown, unknown>) => cachedLayer(self, settings)
  }) as typeof SessionValidator.cached
}

const cachedLayer = <E, R>(
  self: Layer.Layer<SessionValidator, E, R>,
  settings: ReturnType<typeof validators.cacheSettings>
): Layer.Layer<SessionValidator, E, R> =>
  Layer.effect(
    SessionValidator,
    Effect.flatMap(SessionValidator, (underlying) => validators.cached(underlying, settings))
  ).pipe(Layer.provide(self))
