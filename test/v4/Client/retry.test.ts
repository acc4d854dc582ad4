/**
 * Effect 4's retries (src/internal/retry.ts), which the dialect loads on a request's first
 * transient failure and which drive their schedule step by step: the default backoff's waits, a
 * `Retry-After` (seconds, an HTTP date, capped at 30 s), a caller's schedule, the last failure once
 * the schedule is done, and no retry of a failure that is not transient. On `TestClock`; the
 * retried effect is a counter, so nothing but the schedule takes time. (The client's retries over
 * real servers are in the conformance suite; Effect 3's timings in test/Client/retry.test.ts.)
 * And the dialect's test of a caller's `retrySchedule`, which reads the type id so as not to
 * import effect/Schedule.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import { TestClock } from "effect/testing"
import type { RetryPlan } from "../../../src/common/dialect.js"
import { HttpError, type SvcError } from "../../../src/common/SvcError.js"
import { RETRY_RULES } from "../../../src/core/retry.js"
import { client } from "../../../src/internal/dialect.js"
import { retry } from "../../../src/internal/retry.js"

/** An effect that fails with `status` (and `headers`) its first `failures` runs, then succeeds. */
const flaky = (failures: number, status = 503, headers: Record<string, string> = {}) => {
  let runs = 0
  const effect: Effect.Effect<string, SvcError> = Effect.suspend(() => {
    runs++
    return runs <= failures
      ? Effect.fail(new HttpError({ status, error: `failure ${runs}`, body: null, headers }))
      : Effect.succeed("ok")
  })
  return { effect, runs: () => runs }
}

/** Lets the retrying fiber run until it waits on the clock. */
const settle = Effect.gen(function* () {
  for (let i = 0; i < 20; i++) yield* Effect.yieldNow
})

/** Forks the retries of `effect` on `plan`. */
const forked = <A>(effect: Effect.Effect<A, SvcError>, plan: RetryPlan) =>
  Effect.tap(Effect.forkChild(retry(effect, plan, RETRY_RULES)), () => settle)

/** Moves the clock by `millis` and lets the fiber run. */
const advance = (millis: number) => Effect.andThen(TestClock.adjust(`${millis} millis`), settle)

describe("Effect 4: the retries", () => {
  it.effect("back off exponentially with jitter: ~300 ms, then ~600 ms", () =>
    Effect.gen(function* () {
      const { effect, runs } = flaky(2)
      const fiber = yield* forked(effect, { attempts: 2 })
      expect(runs()).toBe(1)
      // the clock a millisecond at a time: when each retry runs
      const retriedAt: Array<number> = []
      for (let now = 1; now <= 1_100 && retriedAt.length < 2; now++) {
        const before = runs()
        yield* advance(1)
        if (runs() > before) retriedAt.push(now)
      }
      const [first = 0, second = 0] = retriedAt
      // ±20 %: the first wait is 240–360 ms, the second 480–720 ms
      expect(first).toBeGreaterThanOrEqual(240)
      expect(first).toBeLessThanOrEqual(360)
      expect(second - first).toBeGreaterThanOrEqual(480)
      expect(second - first).toBeLessThanOrEqual(720)
      expect(runs()).toBe(3)
      expect(yield* Fiber.join(fiber)).toBe("ok")
    })
  )

  it.effect("wait what Retry-After says: seconds, an HTTP date, at most 30 s", () =>
    Effect.gen(function* () {
      for (const [header, millis] of [
        ["5", 5_000],
        // TestClock starts at 0: a date 7 s after it
        [new Date(7_000).toUTCString(), 7_000],
        ["3600", 30_000]
      ] as const) {
        const { effect, runs } = flaky(1, 429, { "retry-after": header })
        const fiber = yield* forked(effect, { attempts: 2 })
        yield* advance(millis - 1)
        expect(runs()).toBe(1)
        yield* advance(1)
        expect(runs()).toBe(2)
        expect(yield* Fiber.join(fiber)).toBe("ok")
        yield* TestClock.setTime(0)
      }
    })
  )

  it.effect("a caller's schedule replaces the backoff; recurs(0) retries nothing", () =>
    Effect.gen(function* () {
      const spaced = flaky(2)
      const fiber = yield* forked(spaced.effect, { schedule: Schedule.spaced("10 seconds") })
      yield* advance(9_999)
      expect(spaced.runs()).toBe(1)
      yield* advance(1)
      expect(spaced.runs()).toBe(2)
      yield* advance(10_000)
      expect(yield* Fiber.join(fiber)).toBe("ok")
      expect(spaced.runs()).toBe(3)

      const once = flaky(1)
      const error = yield* Effect.flip(
        retry(once.effect, { schedule: Schedule.recurs(0) }, RETRY_RULES)
      )
      expect(error).toMatchObject({ _tag: "HttpError", error: "failure 1" })
      expect(once.runs()).toBe(1)
    })
  )

  it.effect("once the schedule is done, the last failure; a failure not transient, at once", () =>
    Effect.gen(function* () {
      const always = flaky(10)
      const fiber = yield* forked(always.effect, { attempts: 2 })
      yield* advance(30_000)
      yield* advance(30_000)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error).toMatchObject({ _tag: "HttpError", status: 503, error: "failure 3" })
      expect(always.runs()).toBe(3)

      const missing = flaky(1, 404)
      const notFound = yield* Effect.flip(retry(missing.effect, { attempts: 2 }, RETRY_RULES))
      expect(notFound).toMatchObject({ _tag: "HttpError", status: 404 })
      expect(missing.runs()).toBe(1)
    })
  )

  it("a caller's schedule is told from other values as Schedule.isSchedule tells it, without it", () => {
    const values: ReadonlyArray<unknown> = [
      Schedule.recurs(1),
      Schedule.spaced("1 second"),
      Schedule.exponential("10 millis").pipe(Schedule.jittered),
      {},
      { "~effect/Schedul": true },
      3,
      "schedule",
      null,
      undefined,
      () => undefined,
      Effect.void
    ]
    expect(values.map(client.isSchedule)).toEqual(values.map(Schedule.isSchedule))
    expect(values.filter(client.isSchedule)).toHaveLength(3)
  })
})
