/**
 * `Retry-After`, for both Effect lines' retries: only they import it, so that a request that never
 * fails transiently does not load it (a browser bundle loads it with the retries). It imports no
 * module of the request program: the retries' chunk would then split it into more.
 */
import type { RetryableError } from "./retry.js"

/** asctime's date format (`Sun Nov  6 08:49:37 1994`), which carries no zone. */
const ASCTIME = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/

/**
 * The other two HTTP-date formats: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and RFC 850's
 * (`Sunday, 06-Nov-94 08:49:37 GMT`). `Date.parse` alone reads far more than dates: `2.5`, `-1`
 * and `+5` as days of 2001 or 2005, long past, which asked for no wait at all.
 */
const GMT_DATE = /^[A-Z][a-z]{2,8}, \d{1,2}[ -][A-Z][a-z]{2}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT$/

/**
 * `Retry-After` as a delay in milliseconds from `now`: delay seconds (a fraction read as ky reads
 * it) or an HTTP date in any of its three formats, all of which are GMT (RFC 9110 5.6.7) —
 * asctime's included, which `Date.parse` alone would read as local time. Anything else (`-1`,
 * `+5`, two headers joined as `1, 2`) asks for nothing: the usual backoff applies.
 */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000
  const date = ASCTIME.test(trimmed)
    ? Date.parse(`${trimmed} GMT`)
    : GMT_DATE.test(trimmed)
      ? Date.parse(trimmed)
      : Number.NaN
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
