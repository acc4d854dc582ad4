/**
 * Which failures are worth another try, for both Effect lines: the retryable statuses, the
 * methods that may be repeated, the failures that would only recur (`Retry-After`: retryAfter.ts).
 */
import { getHeader } from "./headers.js"

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

/** First backoff delay, in milliseconds; each retry doubles it, with ±20 % jitter. */
export const BASE_DELAY_MILLIS = 300

/** No wait between tries is longer than this (ms), whether from backoff or `Retry-After`. */
export const MAX_DELAY_MILLIS = 30_000

/** Methods that may be repeated without changing the outcome. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "PUT", "DELETE", "HEAD", "OPTIONS"])

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
export const isTransient = (error: RetryableError): boolean => {
  switch (error._tag) {
    case "NetworkError":
      return error.permanent !== true
    case "TimeoutError":
      // the whole call's budget is spent: nothing is left for another try
      return error.total !== true
    case "HttpError":
      return error.status !== undefined && RETRYABLE_STATUSES.has(error.status)
    default:
      return false
  }
}

/** What the retry rules read of a failure (a `SvcError` of either line): its tag and flags. */
export interface RetryableError {
  readonly _tag: string
  readonly status?: number | undefined
  readonly permanent?: boolean | undefined
  readonly total?: boolean | undefined
}

/**
 * The rules each line's retries follow, handed to them: they load on a first transient failure
 * and import none of this module, which the request program loads at once. (`Retry-After` is
 * read in `retryAfter.ts`, which only they import.)
 */
export const RETRY_RULES = {
  isTransient,
  baseMillis: BASE_DELAY_MILLIS,
  maxMillis: MAX_DELAY_MILLIS
} as const

export type RetryRules = typeof RETRY_RULES

/**
 * The default backoff's wait before retry `n` (`0` for the first), in milliseconds:
 * {@link BASE_DELAY_MILLIS} × 2ⁿ, jittered between 80 % and 120 % by `random` (in [0, 1), as
 * Effect's `Schedule.jittered` does), capped at {@link MAX_DELAY_MILLIS}.
 */
export const backoffMillis = (n: number, random: number): number => {
  const delay = BASE_DELAY_MILLIS * 2 ** n
  return Math.min(delay * 0.8 * (1 - random) + delay * 1.2 * random, MAX_DELAY_MILLIS)
}
