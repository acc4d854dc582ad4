/**
 * The validator timeout (default 5 s, configurable), with TestClock: in process, and on a real
 * server. Shared: run on both Effect lines (lineKit.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import {
  CurrentUser,
  optionalAuth,
  requireAuth,
  SessionValidator
} from "../../src/v3/Auth/index.js"
import {
  call,
  fork,
  HttpServerRequest,
  HttpServerResponse,
  isRunning,
  json,
  makeProbe,
  pendingSleeps,
  probeValidator,
  requestOf,
  ServerLayer,
  SLOW,
  serve,
  TestClock,
  timerArmed,
  yieldNow
} from "./lineKit.js"

const handler = Effect.map(CurrentUser, (user) => json({ id: user.user_id }))

const slowRequest = requestOf(
  new Request("http://localhost/me", { headers: { "X-Session-Id": SLOW } })
)

const bodyOf = (response: HttpServerResponse.HttpServerResponse) =>
  Effect.promise(() => HttpServerResponse.toWeb(response).json())

/**
 * Runs `app` on the slow id; returns the fiber once the validator has been asked (and, when
 * `timed`, the guard's timer armed: it starts beside the validator).
 */
const startSlow = <E>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, never>,
  asked: Deferred.Deferred<void>,
  timed = true
) =>
  Effect.gen(function* () {
    const fiber = yield* fork(app)
    yield* Deferred.await(asked)
    yield* timed ? timerArmed : settle
    return fiber
  })

/** A few turns of the event loop, for whatever the validation started to get going. */
const settle = Effect.promise(async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
})

const stillRunning = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 10; i++) yield* yieldNow
    return yield* isRunning(fiber)
  })

describe("validator timeout", () => {
  const cases = [
    { name: "default 5 s", guard: requireAuth(), limit: Duration.seconds(5) },
    {
      name: "configured 250 ms",
      guard: requireAuth({ timeout: "250 millis" }),
      limit: Duration.millis(250)
    },
    {
      name: "configured as a number of ms",
      guard: requireAuth({ timeout: 1000 }),
      limit: Duration.seconds(1)
    }
  ]

  it.effect.each(cases)("$name → 500 Authentication service unavailable", ({ guard, limit }) =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      const app = handler.pipe(
        guard,
        Effect.provideService(HttpServerRequest.HttpServerRequest, slowRequest),
        Effect.provide(probeValidator(probe))
      )
      const fiber = yield* startSlow(app, probe.asked)
      yield* TestClock.adjust(Duration.subtract(limit, Duration.millis(1)))
      expect(yield* stillRunning(fiber)).toBe(true)
      yield* TestClock.adjust(Duration.millis(1))
      const response = yield* Fiber.join(fiber)
      expect(response.status).toBe(500)
      expect(yield* bodyOf(response)).toEqual({ error: "Authentication service unavailable" })
    })
  )

  it.effect("Duration.infinity waits for the validator", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      const app = handler.pipe(
        requireAuth({ timeout: Duration.infinity }),
        Effect.provideService(HttpServerRequest.HttpServerRequest, slowRequest),
        Effect.provide(probeValidator(probe))
      )
      const fiber = yield* startSlow(app, probe.asked, false)
      // no timer at all (Effect 3's TestClock lists its sleeps; Effect 4's does not)
      const sleeps = yield* pendingSleeps
      if (sleeps !== undefined) expect(sleeps).toBe(0)
      yield* TestClock.adjust("1 day")
      expect(yield* stillRunning(fiber)).toBe(true)
      yield* Fiber.interrupt(fiber)
    })
  )

  it.effect.each([
    { bound: 5_000, timed: false },
    { bound: 5_001, timed: true }
  ])(
    "a validator that answers within $bound ms by itself: the guard's own 5 s timer is set: $timed",
    ({ bound, timed }) =>
      Effect.gen(function* () {
        const probe = yield* makeProbe
        const bounded = Layer.succeed(SessionValidator, {
          ...Context.get(yield* Layer.build(probeValidator(probe)), SessionValidator),
          answersWithinMillis: bound
        })
        const app = handler.pipe(
          requireAuth(),
          Effect.provideService(HttpServerRequest.HttpServerRequest, slowRequest),
          Effect.provide(bounded)
        )
        const fiber = yield* startSlow(app, probe.asked, timed)
        const sleeps = yield* pendingSleeps
        if (sleeps !== undefined) expect(sleeps).toBe(timed ? 1 : 0)
        yield* TestClock.adjust("5 seconds")
        expect(yield* stillRunning(fiber)).toBe(!timed)
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.scoped)
  )

  it.effect("optionalAuth treats a timeout as a guest", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      const app = HttpServerResponse.json({ ok: true }).pipe(
        optionalAuth(),
        Effect.provideService(HttpServerRequest.HttpServerRequest, slowRequest),
        Effect.provide(probeValidator(probe))
      )
      const fiber = yield* startSlow(app, probe.asked)
      yield* TestClock.adjust("5 seconds")
      const response = yield* Fiber.join(fiber)
      expect(response.status).toBe(200)
      expect(yield* bodyOf(response)).toEqual({ ok: true })
    })
  )

  it.effect("on a real server", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serve(handler.pipe(requireAuth({ timeout: "2 seconds" })), probeValidator(probe))
      const fiber = yield* fork(call("/me", { headers: { "X-Session-Id": SLOW } }))
      yield* Deferred.await(probe.asked)
      yield* timerArmed
      yield* TestClock.adjust("2 seconds")
      expect(yield* Fiber.join(fiber)).toEqual({
        status: 500,
        contentType: "application/json",
        cacheControl: "no-store",
        body: { error: "Authentication service unavailable" }
      })
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})
