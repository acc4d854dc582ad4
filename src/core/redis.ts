/**
 * What every Redis layer shares (the session store's, the login throttle's), without Effect: the
 * connection options and their checks, and an `ioredis` client set up the same way for each.
 */
import { type DurationMillis, nameOption, positiveDurationOption } from "./authOptions.js"
import { describe } from "./describe.js"

/** How a layer reaches Redis, its options checked. */
export interface RedisConnectionSettings {
  readonly url: string
  readonly keyPrefix: string
  readonly commandTimeoutMillis: number
  readonly connectTimeoutMillis: number
}

/** The connection options every Redis layer takes. */
export interface RedisConnectionOptions {
  readonly keyPrefix?: string | undefined
  readonly commandTimeout?: unknown
  readonly connectTimeout?: unknown
}

/**
 * The connection options of the layer named `layer` (`SessionStore.layerRedis`); `url` is the
 * option's value, unredacted. Bad options throw here, where the layer is made, naming the option.
 */
export const redisConnectionSettings = (
  durationMillis: DurationMillis,
  layer: string,
  url: unknown,
  options: RedisConnectionOptions
): RedisConnectionSettings => {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`${layer}: options must be an object, got ${describe(options)}`)
  }
  if (typeof url !== "string" || !/^rediss?:\/\//.test(url)) {
    // the URL may hold a password: it is not quoted
    throw new TypeError(`${layer}: options.url must be a redis:// or rediss:// URL`)
  }
  return {
    url,
    keyPrefix: nameOption(`${layer}: options.keyPrefix`, options.keyPrefix, "svc-sdk:"),
    // positive: ioredis reads 0 as a limit already passed, which fails every command (or the
    // connection) at random
    commandTimeoutMillis:
      options.commandTimeout === undefined
        ? 5_000
        : positiveDurationOption(
            durationMillis,
            `${layer}: options.commandTimeout`,
            options.commandTimeout
          ),
    connectTimeoutMillis:
      options.connectTimeout === undefined
        ? 10_000
        : positiveDurationOption(
            durationMillis,
            `${layer}: options.connectTimeout`,
            options.connectTimeout
          )
  }
}

/**
 * What a layer does with a fresh `ioredis` client: define its scripts, then use it as its own
 * connection type. Declared here rather than imported, so that svc-sdk's declarations never name
 * `ioredis`, an optional peer an app without a Redis layer does not install.
 */
export interface ScriptableClient {
  readonly defineCommand: (
    name: string,
    definition: { readonly lua: string; readonly numberOfKeys?: number }
  ) => void
}

/**
 * An `ioredis` client, not yet connected, for the layer to define its scripts on. Commands never
 * queue while Redis is away: they fail at once and the client reconnects in the background.
 */
export const ioredisClient = async (
  settings: RedisConnectionSettings
): Promise<ScriptableClient> => {
  const { Redis } = await import("ioredis")
  const redis = new Redis(settings.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: settings.commandTimeoutMillis,
    connectTimeout: settings.connectTimeoutMillis,
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
    enableAutoPipelining: true
  })
  redis.on("error", () => {
    // a lost connection shows as failed commands; the client reconnects by itself
  })
  return redis
}
