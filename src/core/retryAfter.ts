/**
 * `Retry-After`, for both Effect lines' retries: only they import it, so that a request that never
 * fails transiently does not load it (a browser bundle loads it with the retries). It imports no
 * module of the request program: the retries' chunk would then split it into more.
 */
import type { RetryableError } from "./retry.js"

/** asctime's date format (`Sun Nov  6 08:49:37 1994`), which carries no zone. */
const ASCTIME = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/

/**
 * `Retry-After` as a delay in milliseconds from `now`: delta seconds or an HTTP date in any of its
 * three formats, all of which are GMT (RFC 9110 5.6.7) — asctime's included, which `Date.parse`
 * alone would read as local time.
 */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(ASCTIME.test(trimmed) ? `${trimmed} GMT` : trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

/**
 * The wait an `HttpError`'s `Retry-After` asks for, in milliseconds from `now`, capped at
 * `maxMillis`; `undefined` for another failure, or none or an unreadable one. A response's header
 * names are lower-case.
 */
export const retryAfterMillis = (
  error: RetryableError & { readonly headers?: Readonly<Record<string, string>> | undefined },
  now: number,
  maxMillis: number
): number | undefined => {
  if (error._tag !== "HttpError" || error.headers === undefined) return undefined
  const wait = parseRetryAfter(error.headers["retry-after"], now)
  return wait === undefined ? undefined : Math.min(wait, maxMillis)
}
