/**
 * Effect 3's retries, on the plan's schedule. The dialect imports this module: Effect 3 keeps
 * effect/Schedule in what a browser loads at once whatever the client does (on Effect 4 the
 * retries load on a first transient failure: src/internal/retry.ts).
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { RetryPlan } from "../../common/dialect.js"
import type { SvcError } from "../../common/SvcError.js"
import {
  BASE_DELAY_MILLIS,
  isTransient,
  MAX_DELAY_MILLIS,
  retryAfterMillis
} from "../../core/retry.js"

/** A schedule whose waits a `Retry-After` header on an `HttpError` sets, capped. */
const honourRetryAfter = (
  schedule: Schedule.Schedule<unknown, SvcError>
): Schedule.Schedule<SvcError, SvcError> =>
  schedule.pipe(
    Schedule.zipRight(Schedule.identity<SvcError>()),
    Schedule.modifyDelayEffect((error, delay) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const wait = retryAfterMillis(error, now)
        return wait === undefined ? delay : Duration.millis(wait)
      })
    )
  )

/** The default schedule: exponential backoff with jitter, capped, `attempts` retries. */
const backoff = (attempts: number): Schedule.Schedule<unknown, SvcError> =>
  Schedule.exponential(Duration.millis(BASE_DELAY_MILLIS), 2).pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.millis(MAX_DELAY_MILLIS))),
    Schedule.intersect(Schedule.recurs(attempts))
  )

/** `effect` again on the plan's schedule while it fails transiently. */
export const retry = <A>(
  effect: Effect.Effect<A, SvcError>,
  plan: RetryPlan
): Effect.Effect<A, SvcError> =>
  Effect.retry(effect, {
    schedule: honourRetryAfter(
      "schedule" in plan
        ? (plan.schedule as Schedule.Schedule<unknown, SvcError>)
        : backoff(plan.attempts)
    ),
    while: isTransient
  })
