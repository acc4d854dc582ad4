/**
 * The session stores' rules that do not depend on an Effect line (SPEC 6.5): lifetimes, the
 * checks of their options, how entries are kept, and the Redis scripts and client.
 */
import { type DurationMillis, positiveDurationOption } from "./authOptions.js"
import { describe } from "./describe.js"
import {
  ioredisClient,
  type RedisConnectionOptions,
  type RedisConnectionSettings,
  redisConnectionSettings
} from "./redis.js"

/** How long a session lives, at most and without use, in milliseconds (`idleMillis` 0: none). */
export interface Lifetimes {
  readonly ttlMillis: number
  readonly idleMillis: number
}

export type LifetimeOptions = { readonly ttl?: unknown; readonly idleTimeout?: unknown } | undefined

/** The default lifetimes of a store's sessions; checked when the store is made. */
export const lifetimesFrom = (
  durationMillis: DurationMillis,
  options: LifetimeOptions
): Lifetimes => {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`SessionStore: options must be an object, got ${describe(options)}`)
  }
  return lifetimesOf(durationMillis, { ttlMillis: 24 * 60 * 60 * 1000, idleMillis: 0 }, options)
}

/** The lifetimes of one session: the store's, with what `create` was given instead. */
export const lifetimesOf = (
  durationMillis: DurationMillis,
  defaults: Lifetimes,
  options: LifetimeOptions
): Lifetimes => ({
  ttlMillis:
    options?.ttl === undefined
      ? defaults.ttlMillis
      : positiveDurationOption(durationMillis, "SessionStore ttl", options.ttl),
  idleMillis:
    options?.idleTimeout === undefined
      ? defaults.idleMillis
      : positiveDurationOption(durationMillis, "SessionStore idleTimeout", options.idleTimeout)
})

/** The user whose sessions `revokeUser` ends: a non-empty string, or an error naming it. */
export const checkUserId = (userId: string): string => checkUserIdOf("revokeUser", userId)

/** The SHA-256 of a string, in hex: what the stores keep instead of ids (and user ids). */
export const sha256 = async (value: string): Promise<string> => {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))
  return Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("")
}

/** What {@link sha256Sync} uses of `node:crypto`. */
interface NodeCrypto {
  /** One call, no hash object: Node ≥ 20.12. */
  readonly hash?: (algorithm: "sha256", value: string, encoding: "hex") => string
  readonly createHash: (algorithm: "sha256") => {
    update(value: string): { digest(encoding: "hex"): string }
  }
}

/**
 * The SHA-256 of a string, in hex, at once: where the runtime has `node:crypto` (Node, Bun, Deno),
 * which also hashes several times faster than Web Crypto's promise; `undefined` elsewhere, where
 * {@link sha256} serves.
 */
export const sha256Sync: ((value: string) => string) | undefined = /*#__PURE__*/ (() => {
  const runtime = (
    globalThis as { readonly process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process
  const nodeCrypto = runtime?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined
  if (nodeCrypto === undefined) return undefined
  const { hash } = nodeCrypto
  return hash !== undefined
    ? (value: string) => hash("sha256", value, "hex")
    : (value: string) => nodeCrypto.createHash("sha256").update(value).digest("hex")
})()

/** `length` random bytes as base64url. */
const randomToken = (length: number): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(length))
  const base64 = btoa(String.fromCharCode(...bytes))
  return base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** 32 random bytes as base64url: a fresh session id of 256 bits. */
export const randomId = (): string => randomToken(32)

/**
 * A session's handle (`list`, `revokeHandle`): 16 random bytes as base64url, drawn when the session
 * is created and stored with it, kept through `rotate`. Random rather than derived from the id or
 * its stored hash (an HMAC of it under a secret of the store, say): it reveals nothing of either
 * whatever leaks, needs no secret shared by every instance on one Redis, and stays the same for the
 * session (the device) when its id is rotated. It is no credential: `revokeHandle` takes the user's
 * id too, and only ever ends that user's sessions.
 */
export const randomHandle = (): string => randomToken(16)

/** The handle a caller gave `revokeHandle`, if it can be one; anything else matches no session. */
export const isHandle = (handle: unknown): handle is string =>
  typeof handle === "string" && /^[A-Za-z0-9_-]{22}$/.test(handle)

/** The user whose sessions an operation lists or ends: a non-empty string, or an error naming it. */
export const checkUserIdOf = (operation: string, userId: string): string => {
  if (typeof userId !== "string" || userId.length === 0) {
    throw new TypeError(
      `SessionStore.${operation}: userId must be a non-empty string, got ${describe(userId)}`
    )
  }
  return userId
}

/**
 * An entry of the `KeyValueStore` store, as JSON. `expiresAt` is the absolute end; `idleUntil`
 * moves on with every `touch` when the session has an idle timeout (`idleMillis` > 0).
 */
export interface Entry<Session> {
  readonly session: Session
  readonly expiresAt: number
  readonly idleMillis: number
  readonly idleUntil?: number
  /**
   * The session's handle, when it was created and when it was last touched (ms). An entry written
   * before svc-sdk kept them has none: `touch` and `list` give it them.
   */
  readonly handle?: string
  readonly createdAt?: number
  readonly lastSeenAt?: number
}

/**
 * How often a session's use is written down: `touch` records a use (its `lastSeenAt`, and the
 * idle deadline that follows from it) only when the last one recorded is at least this old — a
 * twentieth of the idle timeout, at most a minute. A session in steady use then costs a write a
 * minute, not one per request (on Redis with `appendfsync always`, an fsync each), and its idle
 * deadline is never more than 5% early.
 */
export const TOUCH_EVERY_MAX_MILLIS = 60_000
/** The idle timeout's share that a recorded use may lag behind (see `TOUCH_EVERY_MAX_MILLIS`). */
export const TOUCH_EVERY_IDLE_DIVISOR = 20

/** Whether a use at `now` of a session last recorded as seen at `lastSeenAt` is to be written. */
export const touchIsDue = (lastSeenAt: number | undefined, idleMillis: number, now: number) =>
  lastSeenAt === undefined ||
  now - lastSeenAt >=
    (idleMillis > 0
      ? Math.min(TOUCH_EVERY_MAX_MILLIS, idleMillis / TOUCH_EVERY_IDLE_DIVISOR)
      : TOUCH_EVERY_MAX_MILLIS)

/** An entry with a handle and its times: the ones it has, else a fresh handle and `now`. */
export const withLifecycle = <Session>(
  entry: Entry<Session>,
  now: number
): Entry<Session> & {
  readonly handle: string
  readonly createdAt: number
  readonly lastSeenAt: number
} => ({
  ...entry,
  handle: entry.handle ?? randomHandle(),
  createdAt: entry.createdAt ?? now,
  lastSeenAt: entry.lastSeenAt ?? now
})

/** A stored entry's text as an entry, its session decoded by the line; `undefined` if unusable. */
export const parseEntry = <Session>(
  text: string,
  decodeSession: (value: unknown) => Session | undefined
): Entry<Session> | undefined => {
  const value = parseJson(text)
  if (typeof value !== "object" || value === null) return undefined
  const { session, expiresAt, idleMillis = 0, idleUntil } = value as Record<string, unknown>
  if (typeof expiresAt !== "number" || typeof idleMillis !== "number") return undefined
  if (idleUntil !== undefined && typeof idleUntil !== "number") return undefined
  const decoded = decodeSession(session)
  if (decoded === undefined) return undefined
  const { handle, createdAt, lastSeenAt } = value as Record<string, unknown>
  return {
    session: decoded,
    expiresAt,
    idleMillis,
    ...(idleUntil === undefined ? {} : { idleUntil }),
    ...(typeof handle === "string" ? { handle } : {}),
    ...(typeof createdAt === "number" ? { createdAt } : {}),
    ...(typeof lastSeenAt === "number" ? { lastSeenAt } : {})
  }
}

/** The session keys a user index holds; a broken index holds none. */
export const parseIndex = (text: string | undefined): ReadonlyArray<string> => {
  const value = text === undefined ? undefined : parseJson(text)
  return Array.isArray(value) && value.every((key) => typeof key === "string") ? value : []
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** When an entry ends: its absolute end, or its idle deadline when that comes first. */
export const deadlineOf = (entry: Entry<unknown>): number =>
  entry.idleUntil === undefined ? entry.expiresAt : Math.min(entry.expiresAt, entry.idleUntil)

export interface RedisSettings extends RedisConnectionSettings {
  readonly lifetimes: Lifetimes
}

/** Bad options throw here, where the layer is made; `url` is the option's value, unredacted. */
export const redisSettings = (
  durationMillis: DurationMillis,
  url: unknown,
  options: RedisConnectionOptions & {
    readonly ttl?: unknown
    readonly idleTimeout?: unknown
  }
): RedisSettings => ({
  ...redisConnectionSettings(durationMillis, "SessionStore.layerRedis", url, options),
  lifetimes: lifetimesFrom(durationMillis, options)
})

/**
 * Every time is Redis's own (`TIME`), so that instances whose clocks disagree still agree on when a
 * session ends; Redis removes it then (`PEXPIREAT`). A session is a hash: `data` (the session as
 * JSON), `abs` (its absolute end, ms), `idle` (its idle timeout, ms, 0 for none), `handle` (see
 * `randomHandle`), `created` and `seen` (when it was created and last touched, ms), `order` (when
 * it was created, µs: which of two sessions created in one millisecond came first) and `user` (the
 * key of its user's index, a set of the user's session keys). Each script is one atomic step. The
 * scripts that follow a user's index touch keys they are not given (`KEYS`): one Redis, not a
 * cluster, holds a store.
 */
const NOW = `
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
`

/** `TIME` in µs, as digits: a Lua number would print it rounded. */
const NOW_MICROS = `time[1] .. string.format('%06d', tonumber(time[2]))`

/** KEYS: session, user index. ARGV: data, ttl ms, idle ms, handle. */
const CREATE = `${NOW}
local abs = now + tonumber(ARGV[2])
local idle = tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'data', ARGV[1], 'abs', abs, 'idle', idle, 'handle', ARGV[4],
  'created', now, 'order', ${NOW_MICROS}, 'seen', now, 'user', KEYS[2])
local deadline = abs
if idle > 0 and now + idle < abs then deadline = now + idle end
redis.call('PEXPIREAT', KEYS[1], deadline)
redis.call('SADD', KEYS[2], KEYS[1])
local left = redis.call('PTTL', KEYS[2])
if left < 0 or now + left < abs then redis.call('PEXPIREAT', KEYS[2], abs) end
return 1`

/**
 * KEYS: session. ARGV: TOUCH_EVERY_MAX_MILLIS, TOUCH_EVERY_IDLE_DIVISOR. The session's data (nil
 * when it is gone) and Redis's time (ms, as text); when the use it last recorded is old enough
 * (touchIsDue), seen now and its idle deadline moved on. A use that is not due writes nothing.
 */
const TOUCH = `${NOW}
local found = redis.call('HMGET', KEYS[1], 'data', 'abs', 'idle', 'seen')
if not found[1] then return {false, tostring(now)} end
local idle = tonumber(found[3]) or 0
local every = tonumber(ARGV[1])
if idle > 0 and idle / tonumber(ARGV[2]) < every then every = idle / tonumber(ARGV[2]) end
local seen = tonumber(found[4])
if seen and now - seen < every then return {found[1], tostring(now)} end
redis.call('HSET', KEYS[1], 'seen', now)
if idle > 0 then
  local deadline = now + idle
  local abs = tonumber(found[2])
  if deadline > abs then deadline = abs end
  redis.call('PEXPIREAT', KEYS[1], deadline)
end
return {found[1], tostring(now)}`

/**
 * KEYS: session, new session. The session moves to the new key, everything kept (its expiry too:
 * `RENAME` keeps it), and its user's index follows: the old id stops working as the new one starts.
 * 1, or 0 when the session is gone.
 */
const ROTATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('RENAME', KEYS[1], KEYS[2])
local user = redis.call('HGET', KEYS[2], 'user')
if user then
  redis.call('SREM', user, KEYS[1])
  redis.call('SADD', user, KEYS[2])
end
return 1`

/**
 * KEYS: session. ARGV: a fresh handle. The session's handle (a session stored before sessions had
 * handles gets this one, for good); nil when it is gone.
 */
const HANDLE_OF = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
redis.call('HSETNX', KEYS[1], 'handle', ARGV[1])
return redis.call('HGET', KEYS[1], 'handle')`

/**
 * KEYS: user index. The user's live sessions in the order they were created (sessions stored
 * without `order`, or created in one microsecond, by their key), six values each: data, handle,
 * created, seen, abs and idle (the deadline follows from them as `TOUCH` set it). Keys whose
 * session is gone leave the index.
 */
const LIST = `
local found = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local values = redis.call('HMGET', key, 'data', 'handle', 'created', 'seen', 'abs', 'idle', 'order')
  if values[1] then
    values[8] = key
    found[#found + 1] = values
  else
    redis.call('SREM', KEYS[1], key)
  end
end
local function created(values) return tonumber(values[3]) or 0, tonumber(values[7]) or 0 end
table.sort(found, function(a, b)
  local ms_a, us_a = created(a)
  local ms_b, us_b = created(b)
  if ms_a ~= ms_b then return ms_a < ms_b end
  if us_a ~= us_b then return us_a < us_b end
  return a[8] < b[8]
end)
local out = {}
for _, values in ipairs(found) do
  out[#out + 1] = values[1]
  out[#out + 1] = values[2] or ''
  out[#out + 1] = values[3] or '0'
  out[#out + 1] = values[4] or '0'
  out[#out + 1] = values[5] or '0'
  out[#out + 1] = values[6] or '0'
end
return out`

/** KEYS: user index. ARGV: handle. Ends the user's session with that handle: 1, or 0 for none. */
const REVOKE_HANDLE = `
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('HGET', key, 'handle') == ARGV[1] then
    redis.call('SREM', KEYS[1], key)
    return redis.call('DEL', key)
  end
end
return 0`

/** KEYS: session. Ends every other session of its user; answers how many were live (0 if it is gone). */
const REVOKE_OTHERS = `
local user = redis.call('HGET', KEYS[1], 'user')
if not user then return 0 end
local revoked = 0
for _, key in ipairs(redis.call('SMEMBERS', user)) do
  if key ~= KEYS[1] then
    revoked = revoked + redis.call('DEL', key)
    redis.call('SREM', user, key)
  end
end
return revoked`

/** KEYS: user index. Deletes every session listed, then the index; answers how many were live. */
const REVOKE_USER = `
local revoked = 0
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  revoked = revoked + redis.call('DEL', key)
end
redis.call('DEL', KEYS[1])
return revoked`

/** What the store uses of an `ioredis` client, with its scripts defined. */
export interface RedisConnection {
  readonly svcCreate: (
    session: string,
    user: string,
    data: string,
    ttl: number,
    idle: number,
    handle: string
  ) => Promise<unknown>
  readonly svcTouch: (
    session: string,
    every: number,
    divisor: number
  ) => Promise<readonly [data: string | null, now: string]>
  readonly svcRotate: (session: string, rotated: string) => Promise<number>
  readonly svcHandleOf: (session: string, handle: string) => Promise<string | null>
  readonly svcList: (user: string) => Promise<ReadonlyArray<string>>
  readonly svcRevokeHandle: (user: string, handle: string) => Promise<number>
  readonly svcRevokeOthers: (session: string) => Promise<number>
  readonly svcRevokeUser: (user: string) => Promise<number>
  readonly hget: (key: string, field: string) => Promise<string | null>
  readonly hmget: (key: string, ...fields: Array<string>) => Promise<Array<string | null>>
  readonly del: (key: string) => Promise<number>
  readonly connect: () => Promise<void>
  readonly quit: () => Promise<unknown>
  readonly disconnect: () => void
}

/**
 * An `ioredis` client with the store's scripts, not yet connected. Commands never queue while
 * Redis is away: they fail at once (the guards answer 500) and the client reconnects in the
 * background.
 */
export const redisClient = async (settings: RedisSettings): Promise<RedisConnection> => {
  const redis = await ioredisClient(settings)
  redis.defineCommand("svcCreate", { numberOfKeys: 2, lua: CREATE })
  redis.defineCommand("svcTouch", { numberOfKeys: 1, lua: TOUCH })
  redis.defineCommand("svcRotate", { numberOfKeys: 2, lua: ROTATE })
  redis.defineCommand("svcHandleOf", { numberOfKeys: 1, lua: HANDLE_OF })
  redis.defineCommand("svcList", { numberOfKeys: 1, lua: LIST })
  redis.defineCommand("svcRevokeHandle", { numberOfKeys: 1, lua: REVOKE_HANDLE })
  redis.defineCommand("svcRevokeOthers", { numberOfKeys: 1, lua: REVOKE_OTHERS })
  redis.defineCommand("svcRevokeUser", { numberOfKeys: 1, lua: REVOKE_USER })
  return redis as unknown as RedisConnection
}
