/**
 * Effect 3's retries, driven step by step: the default backoff computed by `core/retry.ts`, an
 * app's `retrySchedule` stepped through its own `step`, as Effect's driver steps it. Neither
 * `Effect.retry` nor a `Schedule` combinator: their module would be in every facade's page, used
 * or not (a chunk loaded on demand would share it with the page, and still carry it).
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import type * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import type { RetryPlan } from "../../common/dialect.js"
import type { SvcError } from "../../common/SvcError.js"
import { backoffMillis, isTransient, MAX_DELAY_MILLIS } from "../../core/retry.js"
import { retryAfterMillis } from "../../core/retryAfter.js"

/** The wait before the next try after `error` (ms), at `now`; `undefined`: no more tries. */
type NextWait = (error: SvcError, now: number) => Effect.Effect<number | undefined>

/** The default backoff: `attempts` retries. */
const backoff = (attempts: number): NextWait => {
  let retries = 0
  return () =>
    retries >= attempts
      ? Effect.succeed(undefined)
      : Effect.map(Random.next, (random) => backoffMillis(retries++, random))
}

/** An app's schedule, from its initial state: its decision for each failure. */
const stepping = (schedule: Schedule.Schedule<unknown, SvcError>): NextWait => {
  let state = schedule.initial
  return (error, now) =>
    Effect.map(
      Effect.suspend(() => schedule.step(now, error, state)),
      ([next, , decision]) => {
        state = next
        return ScheduleDecision.isDone(decision)
          ? undefined
          : ScheduleIntervals.start(decision.intervals) - now
      }
    )
}

/**
 * `effect` again on the plan's schedule while it fails transiently, a `Retry-After` setting the
 * wait (capped); once the schedule is done, its last failure.
 */
export const retry = <A>(
  effect: Effect.Effect<A, SvcError>,
  plan: RetryPlan
): Effect.Effect<A, SvcError> =>
  Effect.suspend(() => {
    const nextWait =
      "schedule" in plan
        ? stepping(plan.schedule as Schedule.Schedule<unknown, SvcError>)
        : backoff(plan.attempts)
    const loop: Effect.Effect<A, SvcError> = Effect.catchAll(effect, (error) =>
      isTransient(error)
        ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.flatMap(nextWait(error, now), (wait) => {
              if (wait === undefined) return Effect.fail(error)
              const millis = retryAfterMillis(error, now, MAX_DELAY_MILLIS) ?? wait
              // flatMap, not zipRight: Effect 3's zipRight brings its concurrent variants along
              return millis > 0
                ? Effect.flatMap(Effect.sleep(Duration.millis(millis)), () => loop)
                : loop
            })
          )
        : Effect.fail(error)
    )
    return loop
  })
