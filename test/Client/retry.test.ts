import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as TestClock from "effect/TestClock"
import { afterAll, beforeAll } from "vitest"
import { backoffMillis } from "../../src/core/retry.js"
import { parseRetryAfter } from "../../src/core/retryAfter.js"
import { createSvc } from "../../src/v3/Client/index.js"
import { awaitSleeps } from "./helpers.js"
import { json, type Script, startServer, type TestServer } from "./server.js"
import { withClient } from "./transports.js"

/** Fails with `status` the first `failures` times, then answers 200. */
const failTimes = (
  failures: number,
  status = 503,
  headers: Record<string, string> = {}
): Script => {
  let calls = 0
  return () =>
    calls++ < failures
      ? json({ error: "busy" }, status, headers)
      : json({ data: "ok", success: true })
}

const serverWith = (script: Script) =>
  Effect.acquireRelease(
    Effect.promise(() => startServer(script)),
    (server) => Effect.promise(() => server.close())
  )

describe("retry timing (TestClock)", () => {
  it.scoped("backs off exponentially with jitter: ~300 ms, then ~600 ms", () =>
    Effect.gen(function* () {
      const server = yield* serverWith(failTimes(2))
      const fiber = yield* withClient(server.origin, { timeout: 0 }, (client) =>
        client.get("/r")
      ).pipe(Effect.fork)
      const [first] = yield* awaitSleeps(1)
      expect(first).toBeGreaterThanOrEqual(240)
      expect(first).toBeLessThanOrEqual(360)
      expect(server.requests.length).toBe(1)
      yield* TestClock.adjust(Duration.millis(first!))
      yield* Effect.promise(() => server.waitForRequests(2))
      const [second] = yield* awaitSleeps(1)
      const gap = second! - first!
      expect(gap).toBeGreaterThanOrEqual(480)
      expect(gap).toBeLessThanOrEqual(720)
      yield* TestClock.adjust(Duration.millis(gap))
      const response = yield* Fiber.join(fiber)
      expect(response.data).toBe("ok")
      expect(server.requests.length).toBe(3)
    })
  )

  it.scoped("waits Retry-After seconds", () =>
    Effect.gen(function* () {
      const server = yield* serverWith(failTimes(1, 429, { "retry-after": "5" }))
      const fiber = yield* withClient(server.origin, { timeout: 0 }, (client) =>
        client.get("/r")
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([5000])
      yield* TestClock.adjust("5 seconds")
      expect((yield* Fiber.join(fiber)).success).toBe(true)
      expect(server.requests.length).toBe(2)
    })
  )

  it.scoped("waits until a Retry-After HTTP date", () =>
    Effect.gen(function* () {
      const date = new Date(7_000).toUTCString()
      const server = yield* serverWith(failTimes(1, 503, { "retry-after": date }))
      const fiber = yield* withClient(server.origin, { timeout: 0 }, (client) =>
        client.get("/r")
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([7000])
      yield* TestClock.adjust("7 seconds")
      expect((yield* Fiber.join(fiber)).success).toBe(true)
    })
  )

  it.scoped("caps a long Retry-After at 30 s", () =>
    Effect.gen(function* () {
      const server = yield* serverWith(failTimes(1, 503, { "retry-after": "3600" }))
      const fiber = yield* withClient(server.origin, { timeout: 0 }, (client) =>
        client.get("/r")
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([30_000])
      yield* TestClock.adjust("30 seconds")
      expect((yield* Fiber.join(fiber)).success).toBe(true)
    })
  )

  it.scoped(
    "a retrySchedule steps from its start on every call, and Retry-After sets its wait",
    () =>
      Effect.gen(function* () {
        // each request fails once, then succeeds: /a, /b and /c are three calls
        const counts = new Map<string, number>()
        const server = yield* serverWith((request) => {
          const path = request.path
          const seen = counts.get(path) ?? 0
          counts.set(path, seen + 1)
          if (seen > 0) return json({ data: path, success: true })
          return path === "/c"
            ? json({ error: "busy" }, 429, { "retry-after": "2" })
            : json({ error: "busy" }, 503)
        })
        const fiber = yield* withClient(
          server.origin,
          {
            timeout: 0,
            retrySchedule: Schedule.exponential("1 second").pipe(
              Schedule.intersect(Schedule.recurs(3))
            )
          },
          (client) =>
            Effect.gen(function* () {
              yield* client.get("/a")
              yield* client.get("/b")
              return yield* client.get("/c")
            })
        ).pipe(Effect.fork)
        // /a's first retry waits the schedule's first delay; so does /b's: a call of its own
        expect(yield* awaitSleeps(1)).toEqual([1000])
        yield* TestClock.adjust("1 second")
        expect(yield* awaitSleeps(1)).toEqual([2000])
        yield* TestClock.adjust("1 second")
        // /c's 429 asks for 2 s, which replaces the schedule's 1 s
        expect(yield* awaitSleeps(1)).toEqual([4000])
        yield* TestClock.adjust("2 seconds")
        expect((yield* Fiber.join(fiber)).data).toBe("/c")
        expect(server.requests.length).toBe(6)
      })
  )

  it.scoped("a retrySchedule that is done answers the last failure", () =>
    Effect.gen(function* () {
      const server = yield* serverWith(failTimes(5))
      const fiber = yield* withClient(
        server.origin,
        {
          timeout: 0,
          retrySchedule: Schedule.exponential("1 second").pipe(
            Schedule.intersect(Schedule.recurs(2))
          )
        },
        (client) => Effect.flip(client.get("/r"))
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([1000])
      yield* TestClock.adjust("1 second")
      // the schedule's second delay doubles
      expect(yield* awaitSleeps(1)).toEqual([3000])
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "HttpError", status: 503 })
      expect(server.requests.length).toBe(3)
    })
  )

  it.scoped("a retrySchedule replaces the timing per client and per call", () =>
    Effect.gen(function* () {
      const server = yield* serverWith(failTimes(2))
      const fiber = yield* withClient(
        server.origin,
        {
          timeout: 0,
          retrySchedule: Schedule.spaced("10 seconds").pipe(Schedule.intersect(Schedule.recurs(5)))
        },
        (client) =>
          Effect.gen(function* () {
            const perCall = yield* Effect.flip(client.get("/r", { retrySchedule: Schedule.stop }))
            expect(perCall._tag).toBe("HttpError")
            return yield* client.get("/r")
          })
      ).pipe(Effect.fork)
      expect(yield* awaitSleeps(1)).toEqual([10_000])
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(fiber)).success).toBe(true)
      expect(server.requests.length).toBe(3)
    })
  )

  it("the default backoff: 300 ms doubling, 80 % to 120 % of it, at most 30 s", () => {
    expect(backoffMillis(0, 0)).toBe(240)
    expect(backoffMillis(0, 0.5)).toBe(300)
    expect(backoffMillis(1, 0.5)).toBe(600)
    expect(backoffMillis(2, 1)).toBe(1440)
    expect(backoffMillis(6, 0.5)).toBe(19_200)
    expect(backoffMillis(7, 0.5)).toBe(30_000)
  })

  it("parses Retry-After", () => {
    expect(parseRetryAfter("2", 0)).toBe(2_000)
    expect(parseRetryAfter(new Date(1_500).toUTCString(), 0)).toBe(1_000)
    expect(parseRetryAfter(new Date(0).toUTCString(), 5_000)).toBe(0)
    expect(parseRetryAfter("soon", 0)).toBeUndefined()
    // a fraction of a second, as ky reads it
    expect(parseRetryAfter("2.5", 0)).toBe(2_500)
    // neither seconds nor a date: no wait asked for (Date.parse read each as a day long past,
    // and every retry went at once)
    for (const value of [
      "-1",
      "+5",
      "1, 2",
      "1e3",
      "2.",
      "Tue",
      "12/25/2001",
      "0x10",
      "Sun, 06 Nov 1994 08:49:47 +0000"
    ]) {
      expect(parseRetryAfter(value, 5_000)).toBeUndefined()
    }
  })

  it("reads the three HTTP-date formats as GMT, whatever the machine's time zone", () => {
    const zone = process.env.TZ
    // a zone away from GMT, so that a date read as local time would be off by hours
    process.env.TZ = "America/New_York"
    try {
      const at = Date.UTC(1994, 10, 6, 8, 49, 37)
      expect(parseRetryAfter("Sun, 06 Nov 1994 08:49:47 GMT", at)).toBe(10_000)
      expect(parseRetryAfter("Sunday, 06-Nov-94 08:49:47 GMT", at)).toBe(10_000)
      expect(parseRetryAfter("Sun Nov  6 08:49:47 1994", at)).toBe(10_000)
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
    expect(parseRetryAfter(undefined, 0)).toBeUndefined()
  })
})

const dropTwice = (): Script => {
  let calls = 0
  return () => (calls++ < 2 ? { drop: true } : json({}))
}

describe("which requests are retried (facade, request counts)", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  /** A client whose backoff takes no time, so counts are all that matter. */
  const svc = (retryAttempts?: number) =>
    createSvc(server.origin, {
      ...(retryAttempts === undefined ? {} : { retryAttempts }),
      retrySchedule: Schedule.recurs(retryAttempts ?? 2)
    })

  const countFor = async (run: () => Promise<unknown>, script: Script) => {
    server.script = script
    const before = server.requests.length
    await run()
    return server.requests.length - before
  }

  it.each([408, 425, 429, 500, 502, 503, 504])(
    "retries GET on %i, up to 2 retries by default",
    async (status) => {
      expect(
        await countFor(
          () => svc().get("/x"),
          () => json({}, status)
        )
      ).toBe(3)
    }
  )

  it.each(["put", "delete"] as const)("retries %s", async (method) => {
    const run = () => (method === "put" ? svc().put("/x", {}) : svc().delete("/x"))
    expect(await countFor(run, failTimes(1))).toBe(2)
  })

  it("succeeds after transient failures", async () => {
    server.script = failTimes(2)
    const response = await svc().get("/x")
    expect(response).toMatchObject({ success: true, data: "ok" })
  })

  it("does not retry POST or PATCH without Idempotency-Key", async () => {
    expect(
      await countFor(
        () => svc().post("/x", {}),
        () => json({}, 503)
      )
    ).toBe(1)
    expect(
      await countFor(
        () => svc().patch("/x", {}),
        () => json({}, 503)
      )
    ).toBe(1)
  })

  it("retries POST and PATCH with Idempotency-Key", async () => {
    const headers = { "Idempotency-Key": "k1" }
    expect(
      await countFor(
        () => svc().post("/x", {}, { headers }),
        () => json({}, 503)
      )
    ).toBe(3)
    expect(
      await countFor(
        () => svc().patch("/x", {}, { headers }),
        () => json({}, 503)
      )
    ).toBe(3)
  })

  it.each([400, 401, 403, 404, 409, 422])("never retries %i", async (status) => {
    expect(
      await countFor(
        () => svc().get("/x"),
        () => json({}, status)
      )
    ).toBe(1)
  })

  it("retries dropped connections", async () => {
    const count = await countFor(() => svc().get("/x"), dropTwice())
    expect(count).toBe(3)
  })

  it("retryAttempts sets the number of retries, 0 none", async () => {
    expect(
      await countFor(
        () => svc(0).get("/x"),
        () => json({}, 503)
      )
    ).toBe(1)
    expect(
      await countFor(
        () => svc(4).get("/x"),
        () => json({}, 503)
      )
    ).toBe(5)
    const noSchedule = createSvc(server.origin, { retryAttempts: 0 })
    expect(
      await countFor(
        () => noSchedule.get("/x"),
        () => json({}, 503)
      )
    ).toBe(1)
  })

  it("rejects a bad retryAttempts with a RangeError", () => {
    expect(() => createSvc(server.origin, { retryAttempts: -1 })).toThrow(RangeError)
    expect(() => createSvc(server.origin, { retryAttempts: 1.5 })).toThrow(/retryAttempts/)
  })
})
