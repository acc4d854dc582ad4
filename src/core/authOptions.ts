/**
 * The options of the server half (SPEC 6), checked once, when a guard, validator or store is made,
 * the same on both Effect lines: a bad value throws a `TypeError`/`RangeError` naming it. What only
 * an Effect line knows — what its `Duration` inputs mean — comes in as `durationMillis`.
 */

import type { CrossSiteSettings } from "./crossSite.js"
import { trustedOriginsOption } from "./crossSite.js"
import { describe } from "./describe.js"
import { DEFAULT_SESSION_HEADER } from "./http.js"
import type { SessionIdSource } from "./sessionId.js"

/** Milliseconds of a `Duration` input of the line (`"5 seconds"`, a `Duration`); else `undefined`. */
export type DurationMillis = (value: unknown) => number | undefined

/**
 * Where the session id is read and how long the validator may take; `Duration` is the line's
 * `Duration` input type.
 *
 * @since 0.1.0
 * @category models
 */
export interface GuardOptionsOf<Duration> {
  /**
   * Header read first (case-insensitive).
   * @default "X-Session-Id"
   */
  readonly header?: string | undefined
  /**
   * Cookie read second; `false` skips cookies.
   * @default "session_id"
   */
  readonly cookie?: string | false | undefined
  /**
   * Query parameter read last; `false` skips the query string.
   * @default "session_id"
   */
  readonly query?: string | false | undefined
  /**
   * How long the validator may take before the request gets 500
   * `Authentication service unavailable`. `Duration.infinity` waits forever.
   * @default "5 seconds"
   */
  readonly timeout?: Duration | undefined
  /**
   * Refuse cross-site requests that change state (any method but GET, HEAD, OPTIONS) when the
   * session id came from the cookie or the query parameter, which a browser sends by itself: 403
   * `Cross-site request refused`, before the validator is asked. A request is same-site when its
   * `Origin` is in `trustedOrigins`, else when `Sec-Fetch-Site` is `same-origin` or `none`, else
   * (no `Sec-Fetch-Site`) when it has no `Origin` (not a browser) or the `Origin`'s host equals
   * `Host`. An id in the header is exempt: a page cannot send a custom header cross-site without
   * CORS. `false` turns the check off.
   * @default true
   */
  readonly csrf?: boolean | undefined
  /**
   * Origins (`https://app.example.com`) whose state-changing requests with a cookie or query id
   * are always allowed: a front end on another origin that you trust.
   * @default []
   */
  readonly trustedOrigins?: ReadonlyArray<string> | undefined
  /**
   * Records the authenticated user's `user_id` on the current span, as `user.id` (OpenTelemetry's
   * name), to find a user's requests in your traces. It is personal data: off unless you turn it on.
   * The session id is never recorded.
   * @default false
   */
  readonly spanUserId?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PermissionOptionsOf<Duration, Session> extends GuardOptionsOf<Duration> {
  /**
   * Who passes every permission check.
   * @default (session) => session.user_type === "admin"
   */
  readonly isAdmin?: ((session: Session) => boolean) | undefined
}

/** What a guard knows once its options are checked. */
export interface GuardSettings {
  readonly source: SessionIdSource
  /** `undefined` when the validator is given all the time it wants. */
  readonly timeoutMillis: number | undefined
  readonly crossSite: CrossSiteSettings
  /** Whether the user's `user_id` goes on the current span (the app's opt-in). */
  readonly spanUserId: boolean
}

/** The validator's default time limit in a guard: 5 s. */
export const DEFAULT_GUARD_TIMEOUT_MILLIS = 5_000

/** Every default of a guard in one place; bad options throw here, when the guard is made. */
export const guardSettings = (
  durationMillis: DurationMillis,
  guard: string,
  options: GuardOptionsOf<unknown> | undefined
): GuardSettings => {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`${guard}: options must be an object, got ${describe(options)}`)
  }
  const timeoutMillis = guardTimeout(durationMillis, `${guard}: options.timeout`, options?.timeout)
  const csrf = options?.csrf ?? true
  if (typeof csrf !== "boolean") {
    throw new TypeError(`${guard}: options.csrf must be a boolean, got ${describe(csrf)}`)
  }
  const spanUserId = options?.spanUserId ?? false
  if (typeof spanUserId !== "boolean") {
    throw new TypeError(
      `${guard}: options.spanUserId must be a boolean, got ${describe(spanUserId)}`
    )
  }
  return {
    source: {
      header: tokenOption(
        `${guard}: options.header`,
        options?.header,
        DEFAULT_SESSION_HEADER,
        "header"
      ).toLowerCase(),
      cookie:
        options?.cookie === false
          ? false
          : tokenOption(`${guard}: options.cookie`, options?.cookie, "session_id", "cookie"),
      query: switchableName(`${guard}: options.query`, options?.query)
    },
    timeoutMillis,
    crossSite: {
      enabled: csrf,
      trustedOrigins: trustedOriginsOption(
        `${guard}: options.trustedOrigins`,
        options?.trustedOrigins
      )
    },
    spanUserId
  }
}

/** Default 5 s; an infinite duration means no timeout. */
const guardTimeout = (
  durationMillis: DurationMillis,
  name: string,
  value: unknown
): number | undefined => {
  if (value === undefined) return DEFAULT_GUARD_TIMEOUT_MILLIS
  if (durationMillis(value) === Number.POSITIVE_INFINITY) return undefined
  return durationOption(durationMillis, name, value, DEFAULT_GUARD_TIMEOUT_MILLIS)
}

const switchableName = (name: string, value: unknown): string | false =>
  value === false ? false : nameOption(name, value, "session_id")

/** A non-negative, finite duration in milliseconds, or a `RangeError` naming the argument. */
export const durationOption = (
  durationMillis: DurationMillis,
  name: string,
  value: unknown,
  fallbackMillis: number
): number => {
  if (value === undefined) return fallbackMillis
  const millis = durationMillis(value)
  if (millis === undefined || !Number.isFinite(millis) || millis < 0 || isNegative(value)) {
    throw new RangeError(`${name} must be a finite, non-negative duration, got ${describe(value)}`)
  }
  return millis
}

/** Whether an input says it is negative (or NaN), whatever a line's `Duration` makes of it. */
const isNegative = (value: unknown): boolean =>
  typeof value === "number"
    ? !(value >= 0)
    : typeof value === "bigint"
      ? value < 0n
      : typeof value === "string" && value.trimStart().startsWith("-")

/** A positive, finite duration in milliseconds, or a `RangeError` naming the option. */
export const positiveDurationOption = (
  durationMillis: DurationMillis,
  name: string,
  value: unknown
): number => {
  const millis = durationMillis(value)
  if (millis === undefined || !Number.isFinite(millis) || !(millis > 0) || isNegative(value)) {
    throw new RangeError(`${name} must be a positive, finite duration, got ${String(value)}`)
  }
  return millis
}

/** A non-empty string, or an error naming the argument. */
export const nameOption = (name: string, value: unknown, fallback: string): string => {
  if (value === undefined) return fallback
  if (typeof value !== "string")
    throw new TypeError(`${name} must be a string, got ${describe(value)}`)
  if (value.length === 0) throw new RangeError(`${name} must not be empty`)
  return value
}

/**
 * An HTTP token (RFC 9110), which a header or cookie name is (RFC 6265: no controls, spaces or
 * separators such as `;` `,` `=`).
 */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/**
 * A cookie name as browsers send and servers read it: visible ASCII but `=`, `;` and `,` (broader
 * than RFC 6265's token: `app:sid` and `session[id]` are in use).
 */
const COOKIE_NAME = /^[!-+\--:<>-~]+$/

/**
 * A header or cookie name that a request can carry — a header's an HTTP token other than
 * `__proto__` (which no record holds as a name), a cookie's {@link COOKIE_NAME} — or a `TypeError`
 * naming the argument (a name with a space, a `;` or a control character would never be found).
 */
export const tokenOption = (
  name: string,
  value: unknown,
  fallback: string,
  what: "header" | "cookie"
): string => {
  const checked = nameOption(name, value, fallback)
  if (
    what === "header"
      ? !TOKEN.test(checked) || checked.toLowerCase() === "__proto__"
      : !COOKIE_NAME.test(checked)
  ) {
    throw new TypeError(
      `${name} must be ${what === "header" ? "a header name (an HTTP token other than __proto__)" : "a cookie name (visible ASCII but = ; ,)"}, got ${JSON.stringify(checked)}`
    )
  }
  return checked
}

/** A positive integer, or a `RangeError` naming the argument. */
export const positiveIntegerOption = (name: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${describe(value)}`)
  }
  return value
}

/**
 * Options of `SessionValidator.cached`; `Duration` is the line's `Duration` input type.
 *
 * @since 0.1.0
 * @category models
 */
export interface CacheOptionsOf<Duration> {
  /** How long a valid session is remembered. */
  readonly ttl: Duration
  /**
   * How long an invalid id is remembered.
   * @default ttl
   */
  readonly negativeTtl?: Duration | undefined
  /**
   * How many ids are remembered at most.
   * @default 10000
   */
  readonly capacity?: number | undefined
}

/**
 * Options of `SessionValidator.http`; `Duration` is the line's `Duration` input type.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpValidatorOptionsOf<Duration> {
  /** The auth service's session endpoint, an absolute http(s) URL, asked with `GET`. */
  readonly url: string
  /**
   * The header that carries the session id to the auth service.
   * @default "X-Session-Id"
   */
  readonly header?: string | undefined
  /**
   * More headers for every call (an API key of the auth service, say).
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * Time allowed for each call (the guard's own timeout still applies).
   * @default "5 seconds"
   */
  readonly timeout?: Duration | undefined
  /**
   * Retries on network errors, timeouts and 408/425/429/5xx, with the client's backoff.
   * @default 0
   */
  readonly retryAttempts?: number | undefined
}

/**
 * How long a session lives; `Duration` is the line's `Duration` input type.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionLifetimesOf<Duration> {
  /**
   * The absolute lifetime, from `create`.
   * @default "24 hours"
   */
  readonly ttl?: Duration | undefined
  /**
   * How long a session may go unused (see `touch`) before it ends. None when omitted.
   */
  readonly idleTimeout?: Duration | undefined
}

/**
 * Options of `SessionStore.layerRedis`; `Duration` is the line's `Duration` input type, `Url` what
 * the URL may be given as (a string, or the line's `Redacted` string).
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisStoreOptionsOf<Duration, Url> extends SessionLifetimesOf<Duration> {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS. */
  readonly url: Url
  /**
   * Put before every key, so that several applications can share one Redis.
   * @default "svc-sdk:"
   */
  readonly keyPrefix?: string | undefined
  /**
   * How long one command may take before it fails (and a guard answers 500).
   * @default "5 seconds"
   */
  readonly commandTimeout?: Duration | undefined
  /**
   * How long the layer waits for Redis to accept the connection and answer the client's first
   * commands (its ready check) before it fails with a `SessionStoreError` that names
   * `connectTimeout`. A Redis that accepts the connection and never answers fails the layer then.
   * @default "10 seconds"
   */
  readonly connectTimeout?: Duration | undefined
}
