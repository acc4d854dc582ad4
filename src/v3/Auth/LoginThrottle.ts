/**
 * Slows down password guessing: count failed sign-ins per key (an account, an address) and lock a
 * key for the rest of its window once it has failed too often. In memory for one process, or in
 * Redis, shared by every server instance.
 *
 * @since 0.1.0
 */

import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type { LoginThrottleError } from "../../common/LoginThrottleError.js"
import * as throttle from "../../common/loginThrottle.js"
import type { LoginThrottleOptionsOf, RedisThrottleOptionsOf } from "../../core/loginThrottle.js"
import { auth } from "../internal/auth.js"

export { LoginThrottleError } from "../../common/LoginThrottleError.js"

/**
 * One of the keys given to `check` is locked: too many failures within its window. A handler that
 * lets it fail answers 429 `{"error": "Too many attempts"}` with `Retry-After` (whole seconds,
 * rounded up): it is `@effect/platform`'s `HttpServerRespondable`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LoginThrottle, TooManyAttempts } from "svc-sdk/v3/Auth"
 *
 * const guarded = Effect.flatMap(LoginThrottle, (throttle) => throttle.check("account:alice")).pipe(
 *   Effect.catchTag("TooManyAttempts", (error: TooManyAttempts) => Effect.log(error.retryAfter))
 * )
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class TooManyAttempts extends throttle.tooManyAttemptsOf(auth) {}

/**
 * @since 0.1.0
 * @category models
 */
export interface LoginThrottleService extends throttle.LoginThrottleServiceOf<TooManyAttempts> {}

/**
 * Options of {@link LoginThrottle.layerMemory}.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoginThrottleOptions extends LoginThrottleOptionsOf<Duration.DurationInput> {}

/**
 * Options of {@link LoginThrottle.layerRedis}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisThrottleOptions
  extends RedisThrottleOptionsOf<Duration.DurationInput, string | Redacted.Redacted<string>> {}

const tooMany = (retryAfter: Duration.Duration) => new TooManyAttempts({ retryAfter })

/**
 * Failed sign-ins per key. After `maxAttempts` failures (default 5) of a key within its `window`
 * (default 15 minutes, from its first failure) the key is locked until the window ends: `check`
 * fails with {@link TooManyAttempts}. `failure` counts on while locked and never fails on a lock;
 * `success` clears the keys it is given.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LoginThrottle } from "svc-sdk/v3/Auth"
 *
 * const signIn = (name: string, address: string, passwordOk: boolean) =>
 *   Effect.gen(function* () {
 *     const throttle = yield* LoginThrottle
 *     const keys = [`account:${name}`, `address:${address}`]
 *     yield* throttle.check(keys) // fails with TooManyAttempts: a 429 with Retry-After
 *     if (!passwordOk) return yield* throttle.failure(keys)
 *     yield* throttle.success(`account:${name}`)
 *   })
 *
 * const Throttle = LoginThrottle.layerMemory({ maxAttempts: 5, window: "15 minutes" })
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class LoginThrottle extends Context.Tag("svc-sdk/Auth/LoginThrottle")<
  LoginThrottle,
  LoginThrottleService
>() {
  /**
   * Counts in memory, on Effect's `Clock`: for one process. Bad options throw here.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerMemory = (options?: LoginThrottleOptions): Layer.Layer<LoginThrottle> =>
    Layer.effect(LoginThrottle, throttle.memoryThrottle(auth, tooMany, options))

  /**
   * Counts in Redis, shared by every server instance on it, atomically, one round trip per call;
   * Redis's clock and key expiry end the windows, and with Redis persistence on a lock survives a
   * restart of Redis. Needs the `ioredis` package. While Redis is away every call fails with a
   * `LoginThrottleError` — `check` too, so no attempt goes through unchecked (fail closed). The
   * layer fails when Redis cannot be reached, or does not answer, within `connectTimeout`.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerRedis = (
    options: RedisThrottleOptions
  ): Layer.Layer<LoginThrottle, LoginThrottleError> =>
    Layer.scoped(LoginThrottle, throttle.redisThrottle(auth, tooMany, options))
}
