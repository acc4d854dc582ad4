import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { line } from "../../Client/internal/line.js"
import { redisStore } from "../../common/sessionStore.js"
import {
  redisSettings as checkRedisOptions,
  type RedisConnection,
  type RedisSettings,
  redisClient
} from "../../core/sessionStore.js"
import type { RedisStoreOptions, SessionStoreService } from "../SessionStore.js"
import { SessionStoreError } from "../SessionStoreError.js"
import { storeLine } from "./sessionStore.js"

/** Bad options throw here, where the layer is made. */
export const redisSettings = (options: RedisStoreOptions): RedisSettings =>
  checkRedisOptions(
    line.durationMillis,
    options !== null && typeof options === "object" && Redacted.isRedacted(options.url)
      ? Redacted.value(options.url)
      : options?.url,
    options
  )

/**
 * One connection for the layer's lifetime, closed with it. `connectTimeout` bounds the whole
 * acquisition, on Effect's clock: the TCP connection and every command ioredis sends before it is
 * ready (`CLIENT SETINFO`, the `INFO` ready check), each of which ioredis alone would let run for
 * `commandTimeout`. A client that did not connect is disconnected, so that it neither holds a
 * socket nor reconnects.
 */
const connect = (
  settings: RedisSettings
): Effect.Effect<RedisConnection, SessionStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const redis = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => redisClient(settings),
        catch: (cause) => new SessionStoreError({ operation: "connect", cause })
      }),
      (connection) => Effect.promise(() => connection.quit().catch(() => connection.disconnect()))
    )
    yield* Effect.tryPromise({
      try: () => redis.connect(),
      catch: (cause) => new SessionStoreError({ operation: "connect", cause })
    }).pipe(
      Effect.timeoutOrElse({
        duration: settings.connectTimeoutMillis,
        orElse: () =>
          Effect.fail(
            new SessionStoreError({
              operation: "connect",
              description: `the Redis server did not answer within connectTimeout (${Duration.format(Duration.millis(settings.connectTimeoutMillis))})`
            })
          )
      }),
      Effect.onError(() => Effect.sync(() => redis.disconnect()))
    )
    return redis
  })

export const make = (
  settings: RedisSettings
): Effect.Effect<SessionStoreService, SessionStoreError, Scope.Scope> =>
  Effect.map(connect(settings), (redis) => redisStore(storeLine, redis, settings))
