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

/**
 * How long an attempt under way counts against its keys: from its `check` to its `failure` or
 * `success` (by the same fiber), or at most this long, for an attempt that never reports (its
 * password check failed, its request was interrupted).
 */
export const ATTEMPT_LEASE_MILLIS = 30_000

/**
 * A key's count in memory: its failures, the attempts under way (checked, not reported yet) and
 * when the last of their leases ends, and when its window ends (ms).
 */
interface Count {
  count: number
  pending: number
  pendingUntil: number
  endsAt: number
}

/** An attempt under way: the keys its `check`s reserved, until its lease ends. */
interface Attempt {
  readonly keys: Set<string>
  readonly until: number
}

/**
 * The counts of one process. Keys live in a `Map` (a key named `__proto__` is a key like any
 * other); a key is gone once its window has ended, and ended windows are swept out as the map
 * grows, so that failures under random names cannot hold memory past their window.
 *
 * An attempt under way counts too: `check` reserves its keys for the fiber that checked (its
 * `holder`; several checks of one attempt add to it) until that fiber reports a `failure` or a
 * `success`, or its lease ends. So attempts made at once are bounded like attempts made one after
 * another: however many check before any reports, at most `maxAttempts` pass. A report from a
 * fiber that holds nothing (its `check` ran on a fiber of its own, under `Effect.timeout` say) ends
 * the oldest attempt on its keys instead.
 */
export class MemoryCounts {
  private readonly counts = new Map<string, Count>()
  /** By holder, in the order their leases end (each lease is as long). */
  private readonly attempts = new Map<unknown, Attempt>()
  private sweepAt = 1024

  constructor(private readonly limits: ThrottleLimits) {}

  /**
   * How long until every locked key of `keys` unlocks, in ms, 0 when none is; when none is, the
   * keys are reserved for `holder`, with what it reserved before.
   */
  check(keys: ReadonlyArray<string>, holder: unknown, now: number): number {
    this.expire(now)
    const held = this.attempts.get(holder)?.keys
    let longest = 0
    for (const key of keys) {
      const found = this.counts.get(key)
      if (found === undefined) continue
      const count = found.endsAt > now ? found.count : 0
      // the holder's own attempt is the one it checks again
      const others = found.pending - (held?.has(key) === true ? 1 : 0)
      if (count >= this.limits.maxAttempts) longest = Math.max(longest, found.endsAt - now)
      else if (count + others >= this.limits.maxAttempts) {
        longest = Math.max(longest, found.pendingUntil - now)
      }
    }
    if (longest > 0 || keys.length === 0) return longest
    const until = now + ATTEMPT_LEASE_MILLIS
    const reserved = held ?? new Set<string>()
    for (const key of keys) {
      const found = this.live(key, now)
      if (!reserved.has(key)) {
        reserved.add(key)
        found.pending++
      }
      found.pendingUntil = until
    }
    // last in the order of leases
    this.attempts.delete(holder)
    this.attempts.set(holder, { keys: reserved, until })
    return 0
  }

  failure(keys: ReadonlyArray<string>, holder: unknown, now: number): void {
    this.expire(now)
    this.report(keys, holder)
    for (const key of keys) {
      const found = this.live(key, now)
      // the window starts with the key's first failure
      if (found.count === 0) found.endsAt = now + this.limits.windowMillis
      found.count++
    }
    if (this.counts.size >= this.sweepAt) this.sweep(now)
  }

  success(keys: ReadonlyArray<string>, holder: unknown, now: number): void {
    this.expire(now)
    this.report(keys, holder)
    for (const key of keys) {
      const found = this.counts.get(key)
      // attempts of others under way on the key still count
      if (found === undefined || found.pending === 0) this.counts.delete(key)
      else found.count = 0
    }
  }

  /** The key's count, a fresh one when it has none or its window has ended. */
  private live(key: string, now: number): Count {
    const found = this.counts.get(key)
    if (found !== undefined && found.endsAt > now) return found
    const fresh: Count = {
      count: 0,
      pending: found?.pending ?? 0,
      pendingUntil: found?.pendingUntil ?? 0,
      endsAt: now + this.limits.windowMillis
    }
    this.counts.set(key, fresh)
    return fresh
  }

  /** Ends `holder`'s attempt, or, when it holds none, the oldest attempt on one of `keys`. */
  private report(keys: ReadonlyArray<string>, holder: unknown): void {
    if (this.attempts.has(holder)) {
      this.release(holder)
      return
    }
    for (const [other, attempt] of this.attempts) {
      if (keys.some((key) => attempt.keys.has(key))) {
        this.release(other)
        return
      }
    }
  }

  /** Ends `holder`'s attempt under way, if any. */
  private release(holder: unknown): void {
    const attempt = this.attempts.get(holder)
    if (attempt === undefined) return
    this.attempts.delete(holder)
    for (const key of attempt.keys) {
      const found = this.counts.get(key)
      if (found !== undefined && found.pending > 0) found.pending--
    }
  }

  /** Ends the attempts whose leases have ended (the oldest first). */
  private expire(now: number): void {
    for (const [holder, attempt] of this.attempts) {
      if (attempt.until > now) return
      this.release(holder)
    }
  }

  /** Removes ended windows; the next sweep comes when the map has doubled since. */
  private sweep(now: number): void {
    for (const [key, found] of this.counts) {
      if (found.endsAt <= now && found.pending === 0) this.counts.delete(key)
    }
    this.sweepAt = Math.max(1024, this.counts.size * 2)
  }
}

/**
 * KEYS: the keys' counts, then as many sets of their attempts under way. ARGV: maxAttempts, window
 * ms, lease ms, holder. The longest time left (ms) of a locked key, 0 when none is, and then the
 * keys are reserved for `holder` (its own attempt does not count against it): one round trip for
 * every key. A locked count without expiry (which `FAILURE` never leaves) counts as locked for a whole
 * window: the throttle never fails open. Times are Redis's own.
 */
const CHECK = `
local n = #KEYS / 2
local max, window, lease, holder = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local longest = 0
for i = 1, n do
  local pending = KEYS[n + i]
  redis.call('ZREMRANGEBYSCORE', pending, '-inf', now)
  local count = tonumber(redis.call('GET', KEYS[i])) or 0
  -- the holder's own attempt is the one it checks again
  local others = redis.call('ZCARD', pending)
  if redis.call('ZSCORE', pending, holder) then others = others - 1 end
  if count >= max then
    local left = redis.call('PTTL', KEYS[i])
    if left < 0 then left = window end
    if left > longest then longest = left end
  elseif count + others >= max then
    local last = redis.call('ZRANGE', pending, -1, -1, 'WITHSCORES')
    local left = tonumber(last[2]) - now
    if left > longest then longest = left end
  end
end
if longest > 0 then return longest end
for i = 1, n do
  redis.call('ZADD', KEYS[n + i], now + lease, holder)
  redis.call('PEXPIRE', KEYS[n + i], lease)
end
return 0`

/**
 * KEYS: the keys' counts, then sets of attempts under way. ARGV: window ms, holder, 1 to count a
 * failure of each key or 0 to clear it (a success), how many sets, and 1 when `holder` holds none
 * of them (its `check` ran on another fiber): then the oldest attempt of each set ends instead of
 * the holder's. A count's window starts with its first failure (a count with no expiry, which this
 * script never leaves, gets one too).
 */
const REPORT = `
local n = #KEYS - tonumber(ARGV[4])
local window, holder, failed, oldest = tonumber(ARGV[1]), ARGV[2], ARGV[3] == '1', ARGV[5] == '1'
for i = n + 1, #KEYS do
  if oldest then redis.call('ZPOPMIN', KEYS[i]) else redis.call('ZREM', KEYS[i], holder) end
end
for i = 1, n do
  if failed then
    redis.call('INCR', KEYS[i])
    if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], window) end
  else
    redis.call('DEL', KEYS[i])
  end
end
return 0`

/** What the throttle uses of an `ioredis` client, with its scripts defined. */
export interface ThrottleConnection {
  readonly svcThrottleCheck: (...args: ReadonlyArray<string | number>) => Promise<number>
  readonly svcThrottleReport: (...args: ReadonlyArray<string | number>) => Promise<unknown>
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
  redis.defineCommand("svcThrottleReport", { lua: REPORT })
  return redis as unknown as ThrottleConnection
}
