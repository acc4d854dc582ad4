/**
 * The login throttle's rules that do not depend on an Effect line (SPEC 6.6): its options, how a
 * key is stored, the counting in memory, and the Redis scripts.
 */
import {
  type DurationMillis,
  positiveDurationOption,
  positiveIntegerOption
} from "./authOptions.js"
import { describe } from "./describe.js"
import {
  ioredisClient,
  type RedisConnectionOptions,
  type RedisConnectionSettings,
  redisConnectionSettings
} from "./redis.js"
import { sha256, sha256Sync } from "./sessionStore.js"

/**
 * Options of `LoginThrottle.layerMemory`; `Duration` is the line's `Duration` input type.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoginThrottleOptionsOf<Duration> {
  /**
   * How many failures of a key within `window` lock it.
   * @default 5
   */
  readonly maxAttempts?: number | undefined
  /**
   * How long a key's count lasts, from its first failure: a locked key unlocks when its window
   * ends, and its count starts again from zero. Milliseconds, or a `Duration` input.
   * @default "15 minutes"
   */
  readonly window?: Duration | undefined
}

/**
 * Options of `LoginThrottle.layerRedis`; `Duration` is the line's `Duration` input type, `Url` what
 * the URL may be given as (a string, or the line's `Redacted` string).
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisThrottleOptionsOf<Duration, Url> extends LoginThrottleOptionsOf<Duration> {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. */
  readonly url: Url
  /**
   * Put before every key, so that several applications can share one Redis. The throttle's keys
   * are `<keyPrefix>throttle:<key>`.
   * @default "svc-sdk:"
   */
  readonly keyPrefix?: string | undefined
  /**
   * How long one command may take before it fails (and the call with it).
   * @default "5 seconds"
   */
  readonly commandTimeout?: Duration | undefined
  /**
   * How long the layer waits for Redis to accept the connection and answer the client's first
   * commands before it fails with a `LoginThrottleError` that names `connectTimeout`.
   * @default "10 seconds"
   */
  readonly connectTimeout?: Duration | undefined
}

/** The throttle's limits, checked. */
export interface ThrottleLimits {
  readonly maxAttempts: number
  readonly windowMillis: number
}

/** Every default of the throttle in one place; bad options throw here, naming the option. */
export const throttleLimits = (
  durationMillis: DurationMillis,
  layer: string,
  options: LoginThrottleOptionsOf<unknown> | undefined
): ThrottleLimits => {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`${layer}: options must be an object, got ${describe(options)}`)
  }
  return {
    maxAttempts: positiveIntegerOption(`${layer}: options.maxAttempts`, options?.maxAttempts, 5),
    windowMillis:
      options?.window === undefined
        ? 15 * 60 * 1000
        : positiveDurationOption(durationMillis, `${layer}: options.window`, options.window)
  }
}

export interface RedisThrottleSettings extends RedisConnectionSettings, ThrottleLimits {}

/** The Redis throttle's settings; `url` is the option's value, unredacted. */
export const redisThrottleSettings = (
  durationMillis: DurationMillis,
  url: unknown,
  options: RedisConnectionOptions & LoginThrottleOptionsOf<unknown>
): RedisThrottleSettings => ({
  ...redisConnectionSettings(durationMillis, "LoginThrottle.layerRedis", url, options),
  ...throttleLimits(durationMillis, "LoginThrottle.layerRedis", options)
})

/**
 * The keys a call was given, checked: a string or an array of strings (a programming error throws).
 * Repeated keys count once.
 */
export const keysOf = (method: string, keys: unknown): ReadonlyArray<string> => {
  const list = typeof keys === "string" ? [keys] : keys
  if (!Array.isArray(list) || !list.every((key) => typeof key === "string")) {
    throw new TypeError(
      `LoginThrottle.${method}: keys must be a string or an array of strings, got ${describe(keys)}`
    )
  }
  return list.length > 1 ? [...new Set(list)] : list
}

/** Stored keys longer than this are a digest of the key instead. */
export const MAX_STORED_KEY_LENGTH = 256

const KEPT = /^[\x21-\x24\x26-\x7e]*$/

/**
 * Keys as stored: keys are user input (a name, an address), so the stored form is printable ASCII
 * and bounded, and two keys never share it. Visible ASCII but `%` stays as it is; every other UTF-16
 * unit (controls, spaces, `%`, non-ASCII, lone surrogates) becomes `%` and four hex digits; what is
 * then longer than {@link MAX_STORED_KEY_LENGTH} becomes `%sha256:` and the SHA-256 of that form (no
 * other form has a `%` that four hex digits do not follow). At once when no key needs a digest.
 */
export const storedKeys = (
  keys: ReadonlyArray<string>
): ReadonlyArray<string> | Promise<ReadonlyArray<string>> => {
  const encoded = keys.map((key) => (KEPT.test(key) ? key : encode(key)))
  if (encoded.every((key) => key.length <= MAX_STORED_KEY_LENGTH)) return encoded
  const digest = sha256Sync
  return digest !== undefined
    ? encoded.map((key) => (key.length <= MAX_STORED_KEY_LENGTH ? key : `%sha256:${digest(key)}`))
    : Promise.all(
        encoded.map(async (key) =>
          key.length <= MAX_STORED_KEY_LENGTH ? key : `%sha256:${await sha256(key)}`
        )
      )
}

const encode = (key: string): string => {
  let out = ""
  for (let i = 0; i < key.length; i++) {
    const unit = key.charCodeAt(i)
    out +=
      unit > 0x20 && unit < 0x7f && unit !== 0x25
        ? key[i]
        : `%${unit.toString(16).padStart(4, "0")}`
  }
  return out
}

/** A key's count in memory: its failures, and when its window ends (ms). */
interface Count {
  count: number
  readonly endsAt: number
}

/**
 * The counts of one process. Keys live in a `Map` (a key named `__proto__` is a key like any
 * other); a key is gone once its window has ended, and ended windows are swept out as the map
 * grows, so that failures under random names cannot hold memory past their window.
 */
export class MemoryCounts {
  private readonly counts = new Map<string, Count>()
  private sweepAt = 1024

  constructor(private readonly limits: ThrottleLimits) {}

  /** How long until every locked key of `keys` unlocks, in ms; 0 when none is locked. */
  lockedFor(keys: ReadonlyArray<string>, now: number): number {
    let longest = 0
    for (const key of keys) {
      const found = this.counts.get(key)
      if (found === undefined || found.endsAt <= now) continue
      if (found.count >= this.limits.maxAttempts) longest = Math.max(longest, found.endsAt - now)
    }
    return longest
  }

  failure(keys: ReadonlyArray<string>, now: number): void {
    for (const key of keys) {
      const found = this.counts.get(key)
      if (found === undefined || found.endsAt <= now) {
        this.counts.set(key, { count: 1, endsAt: now + this.limits.windowMillis })
      } else {
        found.count++
      }
    }
    if (this.counts.size >= this.sweepAt) this.sweep(now)
  }

  success(keys: ReadonlyArray<string>): void {
    for (const key of keys) this.counts.delete(key)
  }

  /** Removes ended windows; the next sweep comes when the map has doubled since. */
  private sweep(now: number): void {
    for (const [key, found] of this.counts) if (found.endsAt <= now) this.counts.delete(key)
    this.sweepAt = Math.max(1024, this.counts.size * 2)
  }
}

/**
 * KEYS: the keys. ARGV: maxAttempts, window ms. The longest time left (ms) of a locked key, 0 when
 * none is: one round trip for every key. A locked count without expiry (which `FAILURE` never
 * leaves) counts as locked for a whole window: the throttle never fails open.
 */
const CHECK = `
local longest = 0
local max = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  local count = tonumber(redis.call('GET', key))
  if count and count >= max then
    local left = redis.call('PTTL', key)
    if left < 0 then left = tonumber(ARGV[2]) end
    if left > longest then longest = left end
  end
end
return longest`

/**
 * KEYS: the keys. ARGV: window ms. Counts a failure of each; a count's window starts with its first
 * failure (a count with no expiry, which this script never leaves, gets one too).
 */
const FAILURE = `
local window = tonumber(ARGV[1])
for _, key in ipairs(KEYS) do
  redis.call('INCR', key)
  if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, window) end
end
return 0`

/** What the throttle uses of an `ioredis` client, with its scripts defined. */
export interface ThrottleConnection {
  readonly svcThrottleCheck: (...args: ReadonlyArray<string | number>) => Promise<number>
  readonly svcThrottleFailure: (...args: ReadonlyArray<string | number>) => Promise<unknown>
  readonly del: (...keys: ReadonlyArray<string>) => Promise<number>
  readonly connect: () => Promise<void>
  readonly quit: () => Promise<unknown>
  readonly disconnect: () => void
}

/** An `ioredis` client with the throttle's scripts, not yet connected. */
export const throttleClient = async (
  settings: RedisConnectionSettings
): Promise<ThrottleConnection> => {
  const redis = await ioredisClient(settings)
  redis.defineCommand("svcThrottleCheck", { lua: CHECK })
  redis.defineCommand("svcThrottleFailure", { lua: FAILURE })
  return redis as unknown as ThrottleConnection
}
