import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { RedisStoreOptions, SessionStoreService } from "../SessionStore.js"
import { SessionStoreError } from "../SessionStoreError.js"
import { describe, durationOption, nameOption } from "./options.js"
import {
  checkUserId,
  digestOf,
  failingAs,
  freshId,
  type Lifetimes,
  lifetimesFrom,
  lifetimesOf,
  SessionJson
} from "./sessionStore.js"

/**
 * Every time is Redis's own (`TIME`), so that instances whose clocks disagree still agree on when a
 * session ends; Redis removes it then (`PEXPIREAT`). A session is a hash: `data` (the session as
 * JSON), `abs` (its absolute end, ms) and `idle` (its idle timeout, ms, 0 for none).
 */
const NOW = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`

/** KEYS: session, user index. ARGV: data, ttl ms, idle ms. */
const CREATE = `${NOW}
local abs = now + tonumber(ARGV[2])
local idle = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'abs', abs, 'idle', idle)
local deadline = abs
if idle > 0 and now + idle < abs then deadline = now + idle end
redis.call('PEXPIREAT', KEYS[1], deadline)
redis.call('SADD', KEYS[2], KEYS[1])
local left = redis.call('PTTL', KEYS[2])
if left < 0 or now + left < abs then redis.call('PEXPIREAT', KEYS[2], abs) end
return 1`

/** KEYS: session. The session's data, its idle deadline moved on; nil when it is gone. */
const TOUCH = `
local found = redis.call('HMGET', KEYS[1], 'data', 'abs', 'idle')
if not found[1] then return false end
local idle = tonumber(found[3])
if idle and idle > 0 then
${NOW}
  local deadline = now + idle
  local abs = tonumber(found[2])
  if deadline > abs then deadline = abs end
  redis.call('PEXPIREAT', KEYS[1], deadline)
end
return found[1]`

/** KEYS: user index. Deletes every session listed, then the index; answers how many were live. */
const REVOKE_USER = `
local revoked = 0
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  revoked = revoked + redis.call('DEL', key)
end
redis.call('DEL', KEYS[1])
return revoked`

/** What the store uses of an `ioredis` client, with its scripts defined. */
interface Connection {
  readonly svcCreate: (
    session: string,
    user: string,
    data: string,
    ttl: number,
    idle: number
  ) => Promise<unknown>
  readonly svcTouch: (session: string) => Promise<string | null>
  readonly svcRevokeUser: (user: string) => Promise<number>
  readonly hget: (key: string, field: string) => Promise<string | null>
  readonly del: (key: string) => Promise<number>
  readonly connect: () => Promise<void>
  readonly quit: () => Promise<unknown>
  readonly disconnect: () => void
}

export interface RedisSettings {
  readonly url: string
  readonly keyPrefix: string
  readonly commandTimeout: Duration.Duration
  readonly connectTimeout: Duration.Duration
  readonly lifetimes: Lifetimes
}

/** Bad options throw here, where the layer is made. */
export const redisSettings = (options: RedisStoreOptions): RedisSettings => {
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      `SessionStore.layerRedis: options must be an object, got ${describe(options)}`
    )
  }
  const url = Redacted.isRedacted(options.url) ? Redacted.value(options.url) : options.url
  if (typeof url !== "string" || !/^rediss?:\/\//.test(url)) {
    // the URL may hold a password: it is not quoted
    throw new TypeError("SessionStore.layerRedis: options.url must be a redis:// or rediss:// URL")
  }
  return {
    url,
    keyPrefix: nameOption(
      "SessionStore.layerRedis: options.keyPrefix",
      options.keyPrefix,
      "svc-sdk:"
    ),
    commandTimeout: durationOption(
      "SessionStore.layerRedis: options.commandTimeout",
      options.commandTimeout,
      Duration.seconds(5)
    ),
    connectTimeout: durationOption(
      "SessionStore.layerRedis: options.connectTimeout",
      options.connectTimeout,
      Duration.seconds(10)
    ),
    lifetimes: lifetimesFrom(options)
  }
}

/**
 * One connection for the layer's lifetime, closed with it. Commands never queue while Redis is away:
 * they fail at once (the guards answer 500) and the client reconnects in the background.
 *
 * `connectTimeout` bounds the whole acquisition, on Effect's clock: the TCP connection and every
 * command ioredis sends before it is ready (`CLIENT SETINFO`, the `INFO` ready check), each of which
 * ioredis alone would let run for `commandTimeout`. A client that did not connect is disconnected, so
 * that it neither holds a socket nor reconnects.
 */
const connect = (
  settings: RedisSettings
): Effect.Effect<Connection, SessionStoreError, Scope.Scope> =>
  Effect.gen(function* () {
    const redis = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => client(settings),
        catch: (cause) => new SessionStoreError({ operation: "connect", cause })
      }),
      (connection) => Effect.promise(() => connection.quit().catch(() => connection.disconnect()))
    )
    yield* Effect.tryPromise({
      try: () => redis.connect(),
      catch: (cause) => new SessionStoreError({ operation: "connect", cause })
    }).pipe(
      Effect.timeoutFail({
        duration: settings.connectTimeout,
        onTimeout: () =>
          new SessionStoreError({
            operation: "connect",
            description: `the Redis server did not answer within connectTimeout (${Duration.format(settings.connectTimeout)})`
          })
      }),
      Effect.onError(() => Effect.sync(() => redis.disconnect()))
    )
    return redis
  })

/** An `ioredis` client with the store's scripts, not yet connected. */
const client = async (settings: RedisSettings): Promise<Connection> => {
  const { Redis } = await import("ioredis")
  const redis = new Redis(settings.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: Duration.toMillis(settings.commandTimeout),
    connectTimeout: Duration.toMillis(settings.connectTimeout),
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000)
  })
  redis.on("error", () => {
    // a lost connection shows as failed commands; the client reconnects by itself
  })
  redis.defineCommand("svcCreate", { numberOfKeys: 2, lua: CREATE })
  redis.defineCommand("svcTouch", { numberOfKeys: 1, lua: TOUCH })
  redis.defineCommand("svcRevokeUser", { numberOfKeys: 1, lua: REVOKE_USER })
  return redis as unknown as Connection
}

const decodeSession = Schema.decodeUnknownOption(SessionJson)
const encodeSession = Schema.encode(SessionJson)
/** A stored session as found: `None` when it is gone (or does not decode). */
const sessionFrom = (data: string | null) => (data === null ? Option.none() : decodeSession(data))

export const make = (settings: RedisSettings) =>
  Effect.gen(function* () {
    const redis = yield* connect(settings)
    const sessionKey = (id: Redacted.Redacted<string>) =>
      Effect.map(digestOf(Redacted.value(id)), (digest) => `${settings.keyPrefix}session:${digest}`)
    const userKey = (userId: string) =>
      Effect.map(digestOf(userId), (digest) => `${settings.keyPrefix}user:${digest}`)
    const call = <A>(command: () => Promise<A>) => Effect.tryPromise(command)

    const create: SessionStoreService["create"] = (session, options) => {
      const { idleMillis, ttlMillis } = lifetimesOf(settings.lifetimes, options)
      return Effect.gen(function* () {
        const data = yield* encodeSession(session as typeof SessionJson.Type)
        const id = yield* freshId
        const key = yield* sessionKey(id)
        const index = yield* userKey(session.user_id)
        yield* call(() => redis.svcCreate(key, index, data, ttlMillis, idleMillis))
        return id
      }).pipe(failingAs("create"))
    }

    const get: SessionStoreService["get"] = (id) =>
      Effect.flatMap(sessionKey(id), (key) => call(() => redis.hget(key, "data"))).pipe(
        Effect.map(sessionFrom),
        failingAs("get")
      )

    const touch: SessionStoreService["touch"] = (id) =>
      Effect.flatMap(sessionKey(id), (key) => call(() => redis.svcTouch(key))).pipe(
        Effect.map(sessionFrom),
        failingAs("touch")
      )

    const revoke: SessionStoreService["revoke"] = (id) =>
      Effect.flatMap(sessionKey(id), (key) => call(() => redis.del(key))).pipe(
        Effect.asVoid,
        failingAs("revoke")
      )

    const revokeUser: SessionStoreService["revokeUser"] = (userId) =>
      Effect.flatMap(userKey(checkUserId(userId)), (index) =>
        call(() => redis.svcRevokeUser(index))
      ).pipe(failingAs("revokeUser"))

    return { create, get, touch, revoke, revokeUser } satisfies SessionStoreService
  })
