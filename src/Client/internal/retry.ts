/**
 * The retry policy: which failures are retried, and when.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { getHeader } from "../../core/headers.js"
import { parseRetryAfter } from "../../core/retry.js"
import type { SvcError } from "../SvcError.js"

/** First backoff delay; each retry doubles it, with ±20 % jitter. */
export const BASE_DELAY = Duration.millis(300)

/** No wait between tries is longer than this, whether from backoff or `Retry-After`. */
export const MAX_DELAY = Duration.seconds(30)

/** The default schedule: exponential backoff from {@link BASE_DELAY}, jittered, capped, `attempts` times. */
export const backoff = (attempts: number): Schedule.Schedule<unknown, unknown> =>
  Schedule.max([
    Schedule.jittered(Schedule.exponential(BASE_DELAY, 2)).pipe(
      Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, MAX_DELAY)))
    ),
    Schedule.recurs(attempts)
  ])

/** Wraps a schedule so that a `Retry-After` header on an `HttpError` sets the wait, capped. */
export const honourRetryAfter = (
  schedule: Schedule.Schedule<unknown, SvcError>
): Schedule.Schedule<unknown, SvcError> =>
  schedule.pipe(
    Schedule.modifyDelay(({ input, duration, now }) => {
      if (input._tag !== "HttpError") return Effect.succeed(duration)
      const header = getHeader(input.headers, "retry-after")
      const wait = header === undefined ? undefined : parseRetryAfter(header, now)
      return Effect.succeed(
        wait === undefined ? duration : Duration.min(Duration.millis(wait), MAX_DELAY)
      )
    })
  )
