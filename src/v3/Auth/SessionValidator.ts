/**
 * The service that tells whether a session id is valid, and its constructors.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import type { SessionValidatorServiceOf } from "../../common/authServices.js"
import * as httpValidator from "../../common/httpValidator.js"
import * as validators from "../../common/validators.js"
import type { CacheOptionsOf, HttpValidatorOptionsOf } from "../../core/authOptions.js"
import type * as core from "../../core/authService.js"
import { httpSettings } from "../../core/authService.js"
import { SvcClient } from "../Client/SvcClient.js"
import { auth } from "../internal/auth.js"
import type { SessionData } from "./SessionData.js"

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
export interface SessionValidatorService extends SessionValidatorServiceOf<SessionData> {}

/**
 * The lookup given to {@link SessionValidator.fromPromise}: it receives the raw id (keep it out of
 * your logs) and an `AbortSignal` that fires when the guard gives up (timeout, client gone).
 * `null`/`undefined` means invalid; a rejection or a throw means unavailable.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionLookup = core.SessionLookup

/**
 * The sessions of {@link SessionValidator.memory}, keyed by id.
 *
 * @since 0.1.0
 * @category models
 */
export type MemorySessions = core.MemorySessions

/**
 * Options of {@link SessionValidator.cached}.
 *
 * @since 0.1.0
 * @category models
 */
export interface CacheOptions extends CacheOptionsOf<Duration.DurationInput> {}

/**
 * Options of {@link SessionValidator.http}.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpValidatorOptions extends HttpValidatorOptionsOf<Duration.DurationInput> {}

/**
 * The session validator the guards use. Provide one of its layers:
 *
 * @example
 * ```ts
 * import { SessionValidator } from "svc-sdk/v3/Auth"
 *
 * const FromDb = SessionValidator.fromPromise(async (id) => null)
 * const Fixed = SessionValidator.memory({ "s-1": { user_id: "u1", user_type: "admin" } })
 * const Cached = FromDb.pipe(SessionValidator.cached({ ttl: "1 minute", negativeTtl: "5 seconds" }))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class SessionValidator extends Context.Tag("svc-sdk/Auth/SessionValidator")<
  SessionValidator,
  SessionValidatorService
>() {
  /**
   * A validator from a function returning a promise (or a plain value). The answer is decoded with
   * `SessionData`; an answer that does not decode counts as unavailable.
   *
   * @since 0.1.0
   * @category constructors
   */
  static readonly fromPromise = (lookup: SessionLookup): Layer.Layer<SessionValidator> =>
    Layer.succeed(SessionValidator, validators.fromPromise(auth, lookup))

  /**
   * A validator over a fixed table of sessions (a `Map` or an object keyed by id). Throws a
   * `TypeError` at once when an entry is not `SessionData`.
   *
   * @since 0.1.0
   * @category constructors
   */
  static readonly memory = (sessions: MemorySessions): Layer.Layer<SessionValidator> =>
    Layer.succeed(SessionValidator, validators.memory(auth, sessions))

  /**
   * A validator that asks a remote auth service with the svc-sdk client: `GET <url>` with the id in
   * the `X-Session-Id` header. 200 with a `SessionData` body (plain or in an envelope's `data`) →
   * valid; 401/403/404 → invalid; any other status, a network error, a timeout or a body that is not
   * `SessionData` → unavailable. The transport is the `HttpClient` you provide
   * (`NodeHttpClient.layerUndici`, `FetchHttpClient.layer`). Bad options throw at the call.
   *
   * @since 0.1.0
   * @category constructors
   */
  static readonly http = (
    options: HttpValidatorOptions
  ): Layer.Layer<SessionValidator, never, HttpClient.HttpClient> => {
    const settings = httpSettings(auth.client.durationMillis, options)
    const client = SvcClient.make(settings.url, httpValidator.clientConfig(settings))
    return Layer.effect(SessionValidator, httpValidator.http(auth, settings, client))
  }

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
  } = validators.cachedLayer(auth, SessionValidator) as typeof SessionValidator.cached
}
