/**
 * The login throttle (SPEC 6.6), written against the Effect API both lines share: its service in
 * memory and over Redis, and its `TooManyAttempts` error. The line brings its `Duration` inputs, its
 * timeouts and its `HttpServerRespondable` key.
 */
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import {
  keysOf,
  type LoginThrottleOptionsOf,
  MemoryCounts,
  type RedisThrottleOptionsOf,
  redisThrottleSettings,
  storedKeys,
  type ThrottleConnection,
  throttleClient,
  throttleLimits
} from "../core/loginThrottle.js"
import type { AuthDialect } from "./dialect.js"
import { LoginThrottleError } from "./LoginThrottleError.js"
import { connectRedis, redisUrlOf } from "./redis.js"

/** The pinned text of a 429. */
export const TOO_MANY_ATTEMPTS = "Too many attempts"

/** `Retry-After`: whole seconds, rounded up. */
export const retryAfterSeconds = (retryAfter: Duration.Duration): number =>
  Math.ceil(Duration.toMillis(retryAfter) / 1000)

/** A `TooManyAttempts` error, as both lines' classes make it. */
export interface TooManyAttemptsError extends Cause.YieldableError {
  readonly _tag: "TooManyAttempts"
  readonly retryAfter: Duration.Duration
}

/** The constructor of a line's `TooManyAttempts`. */
export type TooManyAttemptsClass = new (args: {
  readonly retryAfter: Duration.Duration
}) => TooManyAttemptsError

/**
 * `TooManyAttempts` of a line: a tagged error that is the line's `HttpServerRespondable`, so that
 * a handler that lets it fail answers 429 `{"error": "Too many attempts"}` with `Retry-After`.
 */
export const tooManyAttemptsOf = (
  line: Pick<AuthDialect<unknown>, "respondable">
): TooManyAttemptsClass => {
  class TooManyAttempts extends Data.TaggedError("TooManyAttempts")<{
    readonly retryAfter: Duration.Duration
  }> {
    override get message(): string {
      return TOO_MANY_ATTEMPTS
    }
  }
  Object.defineProperty(TooManyAttempts.prototype, line.respondable.key, {
    value(this: TooManyAttempts) {
      return Effect.sync(() =>
        line.respondable.errorResponse(429, TOO_MANY_ATTEMPTS, {
          "retry-after": String(retryAfterSeconds(this.retryAfter))
        })
      )
    }
  })
  return TooManyAttempts
}

/**
 * The throttle's operations over string keys (`account:<name>`, `address:<ip>`); `TooMany` is the
 * line's `TooManyAttempts`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoginThrottleServiceOf<TooMany> {
  /**
   * Fails with `TooManyAttempts` when one of `keys` is locked (`retryAfter`: until the last of
   * them unlocks); with `LoginThrottleError` when the store cannot tell, so that no attempt goes
   * through unchecked.
   */
  readonly check: (
    keys: string | ReadonlyArray<string>
  ) => Effect.Effect<void, TooMany | LoginThrottleError>
  /** Counts a failed attempt of each key; it never fails on a lock, and counts on while locked. */
  readonly failure: (
    keys: string | ReadonlyArray<string>
  ) => Effect.Effect<void, LoginThrottleError>
  /** Clears the count (and lock) of each key: give it the account that signed in. */
  readonly success: (
    keys: string | ReadonlyArray<string>
  ) => Effect.Effect<void, LoginThrottleError>
}

/** The stored form of the keys a call was given; bad keys throw (a programming error). */
const storedOf = (method: string, keys: unknown): Effect.Effect<ReadonlyArray<string>> => {
  const stored = storedKeys(keysOf(method, keys))
  return stored instanceof Promise ? Effect.promise(() => stored) : Effect.succeed(stored)
}

/** The check's answer: `millis` left of the longest lock, 0 for none. */
const lockedFor = <TooMany>(
  tooMany: (retryAfter: Duration.Duration) => TooMany,
  millis: number
): Effect.Effect<void, TooMany> =>
  millis > 0 ? Effect.fail(tooMany(Duration.millis(millis))) : Effect.void

/** Counts in this process, on Effect's `Clock` (a `TestClock` drives the windows in tests). */
export const memoryThrottle = <TooMany>(
  line: Pick<AuthDialect<unknown>, "client">,
  tooMany: (retryAfter: Duration.Duration) => TooMany,
  options: LoginThrottleOptionsOf<unknown> | undefined
): Effect.Effect<LoginThrottleServiceOf<TooMany>> => {
  const limits = throttleLimits(line.client.durationMillis, "LoginThrottle.layerMemory", options)
  return Effect.sync(() => {
    const counts = new MemoryCounts(limits)
    return {
      check: (keys) =>
        Effect.flatMap(storedOf("check", keys), (stored) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            lockedFor(tooMany, counts.lockedFor(stored, now))
          )
        ),
      failure: (keys) =>
        Effect.flatMap(storedOf("failure", keys), (stored) =>
          Effect.map(Clock.currentTimeMillis, (now) => counts.failure(stored, now))
        ),
      success: (keys) => Effect.map(storedOf("success", keys), (stored) => counts.success(stored))
    }
  })
}

/**
 * Counts in Redis, shared by every instance on it, one round trip (one script) per call: Redis's
 * key expiry ends the windows, on Redis's clock.
 */
export const redisThrottle = <TooMany>(
  line: Pick<AuthDialect<unknown>, "client" | "timeout">,
  tooMany: (retryAfter: Duration.Duration) => TooMany,
  options: RedisThrottleOptionsOf<unknown, unknown>
): Effect.Effect<LoginThrottleServiceOf<TooMany>, LoginThrottleError, Scope.Scope> => {
  const settings = redisThrottleSettings(line.client.durationMillis, redisUrlOf(options), options)
  const prefix = `${settings.keyPrefix}throttle:`
  const connected = connectRedis(
    line.timeout,
    settings,
    () => throttleClient(settings),
    (description, cause) =>
      new LoginThrottleError({
        operation: "connect",
        ...(description === undefined ? {} : { description }),
        ...(cause === undefined ? {} : { cause })
      })
  )
  /** `command` over the Redis keys of `keys`; nothing is sent for no keys. */
  const over =
    <A>(
      operation: LoginThrottleError["operation"],
      none: A,
      command: (keys: ReadonlyArray<string>) => Promise<A>
    ) =>
    (keys: unknown): Effect.Effect<A, LoginThrottleError> =>
      Effect.flatMap(storedOf(operation, keys), (stored) =>
        stored.length === 0
          ? Effect.succeed(none)
          : Effect.tryPromise({
              try: () => command(stored.map((key) => prefix + key)),
              catch: (cause) => new LoginThrottleError({ operation, cause })
            })
      )
  return Effect.map(connected, (redis: ThrottleConnection) => {
    const check = over("check", 0, (keys) =>
      redis.svcThrottleCheck(keys.length, ...keys, settings.maxAttempts, settings.windowMillis)
    )
    return {
      check: (keys) => Effect.flatMap(check(keys), (millis) => lockedFor(tooMany, millis)),
      failure: over("failure", undefined, (keys) =>
        redis.svcThrottleFailure(keys.length, ...keys, settings.windowMillis).then(() => undefined)
      ),
      success: over("success", undefined, (keys) => redis.del(...keys).then(() => undefined))
    }
  })
}
