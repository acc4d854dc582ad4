/**
 * How every Redis layer (the session store's, the login throttle's) connects, written against the
 * Effect API both lines share: the URL option, and one connection for the layer's lifetime.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { RedisConnectionSettings } from "../core/redis.js"
import type { AuthDialect } from "./dialect.js"

/** The `url` option as given: a string, or a `Redacted` one unwrapped (checked later). */
export const redisUrlOf = (options: unknown): unknown =>
  options !== null && typeof options === "object" && "url" in options
    ? Redacted.isRedacted(options.url)
      ? Redacted.value(options.url)
      : options.url
    : undefined

/** What a layer's connection needs of its client. */
export interface Connectable {
  readonly connect: () => Promise<void>
  readonly quit: () => Promise<unknown>
  readonly disconnect: () => void
}

/**
 * One connection for the layer's lifetime, closed with it. `connectTimeout` bounds the whole
 * acquisition, on Effect's clock: the TCP connection and every command ioredis sends before it is
 * ready (`CLIENT SETINFO`, the `INFO` ready check), each of which ioredis alone would let run for
 * `commandTimeout`. A client that did not connect is disconnected, so that it neither holds a
 * socket nor reconnects. The layer's failures are `failure(description, cause)`.
 */
export const connectRedis = <C extends Connectable, E>(
  timeout: AuthDialect<unknown>["timeout"],
  settings: RedisConnectionSettings,
  client: () => Promise<C>,
  failure: (description: string | undefined, cause: unknown) => E
): Effect.Effect<C, E, Scope.Scope> =>
  Effect.gen(function* () {
    const redis = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: client, catch: (cause) => failure(undefined, cause) }),
      (connection) => Effect.promise(() => connection.quit().catch(() => connection.disconnect()))
    )
    yield* timeout(
      Effect.tryPromise({
        try: () => redis.connect(),
        catch: (cause) => failure(undefined, cause)
      }),
      settings.connectTimeoutMillis,
      () =>
        failure(
          `the Redis server did not answer within connectTimeout (${Duration.format(Duration.millis(settings.connectTimeoutMillis))})`,
          undefined
        )
    ).pipe(Effect.onError(() => Effect.sync(() => redis.disconnect())))
    return redis
  })
