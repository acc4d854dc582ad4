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
export const checkUserId = (userId: string): string => {
  if (typeof userId !== "string" || userId.length === 0) {
    throw new TypeError(
      `SessionStore.revokeUser: userId must be a non-empty string, got ${describe(userId)}`
    )
  }
  return userId
}

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

/** 32 random bytes as base64url: a fresh session id of 256 bits. */
export const randomId = (): string => {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  const base64 = btoa(String.fromCharCode(...bytes))
  return base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
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
}

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
  return idleUntil === undefined
    ? { session: decoded, expiresAt, idleMillis }
    : { session: decoded, expiresAt, idleMillis, idleUntil }
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
export interface RedisConnection {
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

/**
 * An `ioredis` client with the store's scripts, not yet connected. Commands never queue while
 * Redis is away: they fail at once (the guards answer 500) and the client reconnects in the
 * background.
 */
export const redisClient = async (settings: RedisSettings): Promise<RedisConnection> => {
  const redis = await ioredisClient(settings)
  redis.defineCommand("svcCreate", { numberOfKeys: 2, lua: CREATE })
  redis.defineCommand("svcTouch", { numberOfKeys: 1, lua: TOUCH })
  redis.defineCommand("svcRevokeUser", { numberOfKeys: 1, lua: REVOKE_USER })
  return redis as unknown as RedisConnection
}
