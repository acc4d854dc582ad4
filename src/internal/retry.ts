/**
 * Effect 4's retries, loaded by the dialect on a request's first transient failure: a request that
 * never fails transiently (most) neither loads nor, in a browser bundle, downloads effect/Schedule.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Schedule from "effect/Schedule"
import type { RetryPlan } from "../common/dialect.js"
import type { SvcError } from "../common/SvcError.js"
import type { RetryRules } from "../core/retry.js"
import { retryAfterMillis } from "../core/retryAfter.js"

/** A schedule whose waits a `Retry-After` header on an `HttpError` sets, capped. */
const honourRetryAfter = (
  schedule: Schedule.Schedule<unknown, SvcError>,
  rules: RetryRules
): Schedule.Schedule<unknown, SvcError> =>
  schedule.pipe(
    Schedule.modifyDelay(({ input, duration, now }) => {
      const wait = retryAfterMillis(input, now, rules.maxMillis)
      return Effect.succeed(wait === undefined ? duration : Duration.millis(wait))
    })
  )

/** The default schedule: exponential backoff with jitter, capped, `attempts` retries. */
const backoff = (attempts: number, rules: RetryRules): Schedule.Schedule<unknown, SvcError> =>
  Schedule.max([
    Schedule.jittered(Schedule.exponential(Duration.millis(rules.baseMillis), 2)).pipe(
      Schedule.modifyDelay(({ duration }) =>
        Effect.succeed(Duration.min(duration, Duration.millis(rules.maxMillis)))
      )
    ),
    Schedule.recurs(attempts)
  ])

/**
 * `effect` again on the plan's schedule while it fails transiently; once the schedule is done, its
 * last failure. Driven step by step (`Schedule.toStepWithSleep`) rather than by `Effect.retry`, whose
 * module a browser bundle would then load at once with the rest of effect/Effect.
 */
export const retry = <A>(
  effect: Effect.Effect<A, SvcError>,
  plan: RetryPlan,
  rules: RetryRules
): Effect.Effect<A, SvcError> =>
  Effect.flatMap(
    Schedule.toStepWithSleep(
      honourRetryAfter(
        "schedule" in plan
          ? (plan.schedule as Schedule.Schedule<unknown, SvcError>)
          : backoff(plan.attempts, rules),
        rules
      )
    ),
    (step) => {
      const loop: Effect.Effect<A, SvcError> = Effect.catch(effect, (error) =>
        rules.isTransient(error)
          ? Effect.flatMap(
              Pull.catchDone(step(error), () => Effect.fail(error)),
              () => loop
            )
          : Effect.fail(error)
      )
      return loop
    }
  )
