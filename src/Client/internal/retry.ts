/**
 * The retry policy: which failures are retried, and when.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { getHeader } from "../../core/headers.js"
import type { SvcError } from "../SvcError.js"

/** Statuses worth another try. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([
  408, // Request Timeout
  425, // Too Early
  429, // Too Many Requests
  500, // Internal Server Error
  502, // Bad Gateway
  503, // Service Unavailable
  504 // Gateway Timeout
])

/** Methods that may be repeated without changing the outcome. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "PUT", "DELETE", "HEAD", "OPTIONS"])

/** First backoff delay; each retry doubles it, with ±20 % jitter. */
export const BASE_DELAY = Duration.millis(300)

/** No wait between tries is longer than this, whether from backoff or `Retry-After`. */
export const MAX_DELAY = Duration.seconds(30)

/** Whether a request with this method and headers may be retried at all. */
export const isRetryableRequest = (
  method: string,
  headers: Readonly<Record<string, string>>
): boolean =>
  IDEMPOTENT_METHODS.has(method) ||
  ((method === "POST" || method === "PATCH") && getHeader(headers, "idempotency-key") !== undefined)

/**
 * Whether a failure is transient: network errors (but those that sending again could only repeat),
 * timeouts of a try and the retryable statuses.
 */
export const isTransient = (error: SvcError): boolean => {
  switch (error._tag) {
    case "NetworkError":
      return error.permanent !== true
    case "TimeoutError":
      // the whole call's budget is spent: nothing is left for another try
      return error.total !== true
    case "HttpError":
      return RETRYABLE_STATUSES.has(error.status)
    default:
      return false
  }
}

/** asctime's date format (`Sun Nov  6 08:49:37 1994`), which carries no zone. */
const ASCTIME = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/

/**
 * `Retry-After` as a delay from `now`: delta seconds or an HTTP date in any of its three formats,
 * all of which are GMT (RFC 9110 5.6.7) — asctime's included, which `Date.parse` alone would read
 * as local time.
 */
export const parseRetryAfter = (
  value: string | undefined,
  now: number
): Duration.Duration | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Duration.seconds(Number(trimmed))
  const date = Date.parse(ASCTIME.test(trimmed) ? `${trimmed} GMT` : trimmed)
  if (Number.isNaN(date)) return undefined
  return Duration.millis(Math.max(0, date - now))
}

/** The default schedule: exponential backoff from {@link BASE_DELAY}, jittered, capped, `attempts` times. */
export const backoff = (attempts: number): Schedule.Schedule<unknown, unknown> =>
  Schedule.exponential(BASE_DELAY, 2).pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, MAX_DELAY)),
    Schedule.intersect(Schedule.recurs(attempts))
  )

/** Wraps a schedule so that a `Retry-After` header on an `HttpError` sets the wait, capped. */
export const honourRetryAfter = (
  schedule: Schedule.Schedule<unknown, SvcError>
): Schedule.Schedule<SvcError, SvcError> =>
  schedule.pipe(
    Schedule.zipRight(Schedule.identity<SvcError>()),
    Schedule.modifyDelayEffect((error, delay) => {
      if (error._tag !== "HttpError") return Effect.succeed(delay)
      const header = getHeader(error.headers, "retry-after")
      if (header === undefined) return Effect.succeed(delay)
      return Effect.map(Clock.currentTimeMillis, (now) => {
        const wait = parseRetryAfter(header, now)
        return wait === undefined ? delay : Duration.min(wait, MAX_DELAY)
      })
    })
  )
