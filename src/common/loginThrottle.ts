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
  ATTEMPT_LEASE_MILLIS,
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
   * through unchecked. Else the attempt counts against its keys until this fiber reports its
   * `failure` or `success` (or 30 seconds pass): attempts made at once are bounded as attempts
   * made one after another are.
   */
  readonly check: (
    keys: string | ReadonlyArray<string>
  ) => Effect.Effect<void, TooMany | LoginThrottleError>
  /**
   * Counts a failed attempt of each key; it never fails on a lock, and counts on while locked.
   * Ends this fiber's attempt under way.
   */
  readonly failure: (
    keys: string | ReadonlyArray<string>
  ) => Effect.Effect<void, LoginThrottleError>
  /**
   * Clears the count (and lock) of each key: give it the account that signed in. Ends this fiber's
   * attempt under way, on all the keys it checked.
   */
  readonly success: (
    keys: string | ReadonlyArray<string>
  ) => Effect.Effect<void, LoginThrottleError>
}

/** The stored form of the keys a call was given; bad keys throw (a programming error). */
const storedOf = (method: string, keys: unknown): Effect.Effect<ReadonlyArray<string>> => {
  const stored = storedKeys(keysOf(method, keys))
  return stored instanceof Promise ? Effect.promise(() => stored) : Effect.succeed(stored)
}

/**
 * Who makes an attempt, as Redis knows it: the fiber that checked, by a name unique across the
 * instances that share Redis.
 */
const holders = new WeakMap<object, string>()
const PROCESS = /*#__PURE__*/ Math.random().toString(36).slice(2)
let holderCount = 0
const holderOf = (fiber: object): string => {
  let name = holders.get(fiber)
  if (name === undefined) {
    name = `${PROCESS}:${++holderCount}`
    holders.set(fiber, name)
  }
  return name
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
    /** `f` with the keys as stored, the calling fiber (who holds the attempt) and the time. */
    const withKeys = <A, E>(
      method: string,
      keys: unknown,
      f: (stored: ReadonlyArray<string>, holder: unknown, now: number) => Effect.Effect<A, E>
    ) =>
      Effect.flatMap(storedOf(method, keys), (stored) =>
        line.client.withFiber((holder) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => f(stored, holder, now))
        )
      )
    return {
      check: (keys) =>
        withKeys("check", keys, (stored, holder, now) =>
          lockedFor(tooMany, counts.check(stored, holder, now))
        ),
      failure: (keys) =>
        withKeys("failure", keys, (stored, holder, now) =>
          Effect.sync(() => counts.failure(stored, holder, now))
        ),
      success: (keys) =>
        withKeys("success", keys, (stored, holder, now) =>
          Effect.sync(() => counts.success(stored, holder, now))
        )
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
  /**
   * `command` over the Redis keys of the keys as `storedOf` gives them (checked at the call, as
   * on the memory throttle); nothing is sent for no keys.
   */
  const over =
    <A>(
      operation: LoginThrottleError["operation"],
      none: A,
      command: (keys: ReadonlyArray<string>) => Promise<A>
    ) =>
    (keys: Effect.Effect<ReadonlyArray<string>>): Effect.Effect<A, LoginThrottleError> =>
      Effect.flatMap(keys, (stored) =>
        stored.length === 0
          ? Effect.succeed(none)
          : Effect.tryPromise({
              try: () => command(stored.map((key) => prefix + key)),
              catch: (cause) => new LoginThrottleError({ operation, cause })
            })
      )
  /** The sets of attempts under way each fiber reserved with its checks, by fiber. */
  const reserved = new WeakMap<object, ReadonlyArray<string>>()
  // `%attempts` ends no stored key (a `%` there is followed by four hex digits or `sha256:`): the
  // sets never meet a count
  const attemptsOf = (key: string) => `${key}%attempts`
  return Effect.map(connected, (redis: ThrottleConnection) => {
    /** `failure` (`failed`) or `success` of the calling fiber over `keys`. */
    const report = (operation: "failure" | "success", failed: boolean) => (keys: unknown) => {
      const stored = storedOf(operation, keys)
      return line.client.withFiber((fiber) => {
        const holder = fiber as object
        const held = reserved.get(holder)
        reserved.delete(holder)
        return over(operation, undefined, (stored) => {
          // a fiber that holds nothing ends the oldest attempt on its keys
          const sets = held ?? stored.map(attemptsOf)
          return redis
            .svcThrottleReport(
              stored.length + sets.length,
              ...stored,
              ...sets,
              settings.windowMillis,
              holderOf(holder),
              failed ? 1 : 0,
              sets.length,
              held === undefined ? 1 : 0
            )
            .then(() => undefined)
        })(stored)
      })
    }
    return {
      check: (keys) => {
        const stored = storedOf("check", keys)
        return line.client.withFiber((fiber) => {
          const holder = fiber as object
          return Effect.flatMap(
            over("check", 0, (stored) => {
              const pending = stored.map(attemptsOf)
              return redis
                .svcThrottleCheck(
                  stored.length * 2,
                  ...stored,
                  ...pending,
                  settings.maxAttempts,
                  settings.windowMillis,
                  ATTEMPT_LEASE_MILLIS,
                  holderOf(holder)
                )
                .then((millis) => {
                  // several checks of one attempt add to what it holds
                  if (millis === 0) {
                    const held = reserved.get(holder) ?? []
                    reserved.set(holder, [...new Set([...held, ...pending])])
                  }
                  return millis
                })
            })(stored),
            (millis) => lockedFor(tooMany, millis)
          )
        })
      },
      failure: report("failure", true),
      success: report("success", false)
    }
  })
}
