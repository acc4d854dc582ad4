/**
 * The login throttle (SPEC 6.6): the memory layer on the TestClock, its 429 through a real server
 * of the line, then the Redis layer against a real `redis-server`: instances share counts, counting
 * is atomic, `check` is one round trip, and a restart of Redis keeps the lock (fail closed while it
 * is away). Shared: run on both Effect lines (lineKit.ts).
 */
import { existsSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { Redis } from "ioredis"
import {
  LoginThrottle,
  LoginThrottleError,
  type LoginThrottleService,
  TooManyAttempts
} from "../../src/v3/Auth/index.js"
import { REDIS_SERVER, type RedisServer, startRedis } from "../support/redis.js"
import {
  fork,
  HttpClient,
  HttpClientRequest,
  LINE,
  makeProbe,
  probeValidator,
  ServerLayer,
  serveRoutes,
  TestClock,
  text
} from "./lineKit.js"

const hasRedis = existsSync(REDIS_SERVER)
if (!hasRedis) console.warn(`Skipping the Redis throttle suite: ${REDIS_SERVER} is absent.`)

const MINUTE = 60_000
const WINDOW = 15 * MINUTE

/** The throttle of a fresh memory layer. */
const memory = (options?: Parameters<typeof LoginThrottle.layerMemory>[0]) =>
  Effect.provide(LoginThrottle, LoginThrottle.layerMemory(options))

/** How `check(keys)` ended: "ok", the lock's retryAfter in ms, or the error's tag. */
const checked = (
  throttle: LoginThrottleService,
  keys: string | ReadonlyArray<string>
): Effect.Effect<number | string> =>
  Effect.match(throttle.check(keys), {
    onSuccess: () => "ok",
    onFailure: (error) =>
      error instanceof TooManyAttempts ? Duration.toMillis(error.retryAfter) : error._tag
  })

const failTimes = (
  throttle: LoginThrottleService,
  keys: string | ReadonlyArray<string>,
  n: number
) => Effect.forEach(Array.from({ length: n }), () => throttle.failure(keys), { discard: true })

/**
 * `n` attempts at once, each on a fiber of its own, as a login handler makes them: each checks,
 * waits until every attempt has checked (or been refused), then reports its failure. How many got
 * past `check`.
 */
const atOnce = (throttle: LoginThrottleService, keys: ReadonlyArray<string>, n: number) =>
  Effect.gen(function* () {
    let arrived = 0
    let release: () => void = () => undefined
    const allChecked = new Promise<void>((resolve) => {
      release = resolve
    })
    const attempt = Effect.gen(function* () {
      const passed = Exit.isSuccess(yield* Effect.exit(throttle.check(keys)))
      if (++arrived === n) release()
      yield* Effect.promise(() => allChecked)
      if (passed) yield* throttle.failure(keys)
      return passed
    })
    const passed = yield* Effect.forEach(Array.from({ length: n }), () => attempt, {
      concurrency: "unbounded"
    })
    return passed.filter(Boolean).length
  })

/** Signs in `n` times, one after another, each on a fiber of its own: check, then success. */
const signIns = (throttle: LoginThrottleService, address: string, n: number) =>
  Effect.forEach(
    Array.from({ length: n }, (_, i) => `account:user${i}`),
    (account) =>
      Effect.flatMap(
        fork(Effect.flatMap(throttle.check([account, address]), () => throttle.success(account))),
        Fiber.join
      ),
    { discard: true }
  )

/**
 * Three wrong passwords, each on a fiber of its own, made the ways an app may: two checks of one
 * attempt, or a check under `Effect.timeout` (on a fiber of its own). Then how the account checks.
 */
const reportedAttempts = (throttle: LoginThrottleService) =>
  Effect.gen(function* () {
    const keys = ["account:alice", "address:10.0.0.1"]
    const twoChecks = Effect.flatMap(throttle.check(keys[0]!), () =>
      Effect.flatMap(throttle.check(keys[1]!), () => throttle.failure(keys))
    )
    const underTimeout = Effect.flatMap(
      Effect.timeout(throttle.check(keys), Duration.seconds(5)),
      () => throttle.failure(keys)
    )
    for (const attempt of [twoChecks, underTimeout, twoChecks]) {
      yield* Effect.flatMap(fork(attempt), Fiber.join)
    }
    // 3 failures of 4: nothing of those attempts still counts
    return yield* checked(throttle, keys)
  })

describe(`LoginThrottle.layerMemory (Effect ${LINE})`, () => {
  it.effect("an attempt's report ends it however it checked: twice, or under Effect.timeout", () =>
    Effect.gen(function* () {
      expect(yield* reportedAttempts(yield* memory({ maxAttempts: 4 }))).toBe("ok")
    })
  )

  it.effect(
    "attempts made at once are bounded as attempts one after another: 200 at once, 5 pass",
    () =>
      Effect.gen(function* () {
        const throttle = yield* memory()
        const keys = ["account:alice", "address:203.0.113.7"]
        expect(yield* atOnce(throttle, keys, 200)).toBe(5)
        expect(yield* checked(throttle, keys)).toBe(WINDOW)
      })
  )

  it.effect(
    "an attempt that succeeds frees every key it checked: sign-ins from one address never lock it",
    () =>
      Effect.gen(function* () {
        const throttle = yield* memory({ maxAttempts: 3 })
        yield* signIns(throttle, "address:10.0.0.1", 10)
        expect(yield* checked(throttle, "address:10.0.0.1")).toBe("ok")
      })
  )

  it.effect("an attempt that never reports counts for 30 seconds, then stops", () =>
    Effect.gen(function* () {
      const throttle = yield* memory({ maxAttempts: 2 })
      // two attempts whose fibers end without a failure or a success (a password check that died)
      for (let i = 0; i < 2; i++) {
        yield* Effect.flatMap(fork(throttle.check("account:alice")), Fiber.join)
      }
      expect(yield* checked(throttle, "account:alice")).toBe(30_000)
      yield* TestClock.adjust(Duration.seconds(30))
      expect(yield* checked(throttle, "account:alice")).toBe("ok")
      // and a failure still locks for the whole window, from itself
      yield* failTimes(throttle, "account:alice", 2)
      expect(yield* checked(throttle, "account:alice")).toBe(WINDOW)
    })
  )

  it.effect("locks a key after 5 failures until its window (15 minutes) ends", () =>
    Effect.gen(function* () {
      const throttle = yield* memory()
      yield* failTimes(throttle, "account:alice", 4)
      expect(yield* checked(throttle, "account:alice")).toBe("ok")
      yield* TestClock.adjust(Duration.minutes(5))
      yield* throttle.failure("account:alice")
      // locked until the end of the window that the first failure opened
      expect(yield* checked(throttle, "account:alice")).toBe(WINDOW - 5 * MINUTE)
      expect(yield* checked(throttle, "account:bob")).toBe("ok")
      yield* TestClock.adjust(Duration.millis(WINDOW - 5 * MINUTE - 1))
      expect(yield* checked(throttle, "account:alice")).toBe(1)
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* checked(throttle, "account:alice")).toBe("ok")
      // a new window: the count starts again from zero
      yield* failTimes(throttle, "account:alice", 4)
      expect(yield* checked(throttle, "account:alice")).toBe("ok")
    })
  )

  it.effect("failure keeps counting during a lock and never fails; the window does not move", () =>
    Effect.gen(function* () {
      const throttle = yield* memory({ maxAttempts: 2, window: "1 minute" })
      yield* failTimes(throttle, "k", 2)
      expect(yield* checked(throttle, "k")).toBe(MINUTE)
      yield* TestClock.adjust(Duration.seconds(30))
      const exits = yield* Effect.exit(failTimes(throttle, "k", 10))
      expect(Exit.isSuccess(exits)).toBe(true)
      expect(yield* checked(throttle, "k")).toBe(30_000)
      yield* TestClock.adjust(Duration.seconds(30))
      expect(yield* checked(throttle, "k")).toBe("ok")
    })
  )

  it.effect("success clears the keys it is given, and only those", () =>
    Effect.gen(function* () {
      const throttle = yield* memory()
      const keys = ["account:alice", "address:10.0.0.1"]
      yield* failTimes(throttle, keys, 5)
      expect(yield* checked(throttle, keys)).toBe(WINDOW)
      yield* throttle.success("account:alice")
      expect(yield* checked(throttle, "account:alice")).toBe("ok")
      expect(yield* checked(throttle, keys)).toBe(WINDOW)
      yield* throttle.success(["address:10.0.0.1"])
      expect(yield* checked(throttle, keys)).toBe("ok")
    })
  )

  it.effect("check answers the longest lock of its keys; a repeated key counts once", () =>
    Effect.gen(function* () {
      const throttle = yield* memory({ maxAttempts: 3 })
      yield* failTimes(throttle, "a", 3)
      yield* TestClock.adjust(Duration.minutes(10))
      yield* failTimes(throttle, ["b", "b", "b"], 3)
      expect(yield* checked(throttle, ["a", "c"])).toBe(5 * MINUTE)
      expect(yield* checked(throttle, ["a", "b", "c"])).toBe(WINDOW)
      expect(yield* checked(throttle, [])).toBe("ok")
    })
  )

  it.effect("keys are data: prototype names, controls, encodings and long keys never collide", () =>
    Effect.gen(function* () {
      const throttle = yield* memory({ maxAttempts: 1 })
      const locked = ["__proto__", "constructor", "a\u0000", "é", "x".repeat(10_000), "\ud800"]
      const free = [
        "toString",
        "prototype",
        "a",
        "a%0000",
        "%00e9",
        "x".repeat(9_999),
        `${"x".repeat(9_999)}y`,
        "\ud801",
        "\ufffd"
      ]
      for (const key of locked) yield* throttle.failure(key)
      for (const key of locked) expect(yield* checked(throttle, key)).toBe(WINDOW)
      for (const key of free) expect(yield* checked(throttle, key)).toBe("ok")
      expect(Object.getPrototypeOf({})).toBe(Object.prototype)
    })
  )

  it("checks its options and keys, naming them", () => {
    for (const maxAttempts of [0, -1, 1.5, Number.NaN, "5"]) {
      expect(() => LoginThrottle.layerMemory({ maxAttempts: maxAttempts as number })).toThrow(
        "LoginThrottle.layerMemory: options.maxAttempts must be a positive integer"
      )
    }
    for (const window of [0, -5, "nope", Number.POSITIVE_INFINITY, "-1 minute"]) {
      expect(() => LoginThrottle.layerMemory({ window: window as number })).toThrow(
        "LoginThrottle.layerMemory: options.window must be a positive, finite duration"
      )
    }
    expect(() => LoginThrottle.layerMemory(null as never)).toThrow(TypeError)
    expect(() => LoginThrottle.layerRedis({ url: "http://x" })).toThrow(
      "LoginThrottle.layerRedis: options.url must be a redis:// or rediss:// URL"
    )
    expect(() => LoginThrottle.layerRedis({ url: "redis://x", window: 0 })).toThrow(
      "LoginThrottle.layerRedis: options.window"
    )
    const throttle = Effect.runSync(memory())
    expect(() => throttle.check(42 as never)).toThrow(
      "LoginThrottle.check: keys must be a string or an array of strings, got 42"
    )
    expect(() => throttle.failure([null] as never)).toThrow(TypeError)
  })

  it("TooManyAttempts: pinned tag and message, retryAfter a Duration", () => {
    const error = new TooManyAttempts({ retryAfter: Duration.seconds(3) })
    expect(error._tag).toBe("TooManyAttempts")
    expect(error.message).toBe("Too many attempts")
    expect(Duration.toMillis(error.retryAfter)).toBe(3_000)
  })
})

/** GET `path` on the test server: status, Retry-After and body. */
const get = (path: string) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.get(path))
    return {
      status: response.status,
      retryAfter: response.headers["retry-after"],
      contentType: response.headers["content-type"],
      body: yield* response.text
    }
  }).pipe(Effect.orDie)

describe(`LoginThrottle over HTTP (Effect ${LINE})`, () => {
  it.effect("a handler that lets TooManyAttempts fail answers 429, Retry-After rounded up", () =>
    Effect.gen(function* () {
      const throttle = yield* memory({ maxAttempts: 2, window: "10 seconds" })
      const login = throttle
        .check("account:alice")
        .pipe(
          Effect.andThen(throttle.failure("account:alice")),
          Effect.andThen(text("wrong password"))
        )
      yield* serveRoutes(
        [{ method: "GET", path: "/login", handler: login }],
        probeValidator(yield* makeProbe)
      )
      expect((yield* get("/login")).status).toBe(200)
      yield* TestClock.adjust(Duration.millis(1))
      expect((yield* get("/login")).status).toBe(200)
      const refused = yield* get("/login")
      expect(refused).toEqual({
        status: 429,
        retryAfter: "10",
        contentType: "application/json",
        body: '{"error":"Too many attempts"}'
      })
      // 9,999 ms left → 10 s; 1 ms left → 1 s
      yield* TestClock.adjust(Duration.millis(8_998))
      expect((yield* get("/login")).retryAfter).toBe("2")
      yield* TestClock.adjust(Duration.millis(1))
      expect((yield* get("/login")).retryAfter).toBe("1")
      yield* TestClock.adjust(Duration.millis(999))
      expect((yield* get("/login")).retryAfter).toBe("1")
      yield* TestClock.adjust(Duration.millis(1))
      expect((yield* get("/login")).status).toBe(200)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})

let redis: RedisServer | undefined
beforeAll(async () => {
  if (hasRedis) redis = await startRedis()
}, 30_000)
afterAll(() => redis?.dispose())

/** A throttle on the shared Redis with its own connection, for the rest of the scope. */
const onRedis = (
  keyPrefix: string,
  options: Omit<Parameters<typeof LoginThrottle.layerRedis>[0], "url"> = {}
) =>
  Effect.flatMap(
    Layer.build(LoginThrottle.layerRedis({ url: redis?.url ?? "", keyPrefix, ...options })),
    (context) => Effect.provide(LoginThrottle, context)
  )

/** A plain client of the test's Redis, closed with the scope. */
const rawClient = Effect.acquireRelease(
  Effect.sync(() => new Redis(redis?.url ?? "").on("error", () => {})),
  (client) => Effect.promise(() => client.quit())
)

let prefixes = 0
const freshPrefix = () => `t${LINE}-${process.pid}-${prefixes++}:`

describe(`LoginThrottle.layerRedis, no Redis (Effect ${LINE})`, () => {
  it.live("a Redis that cannot be reached fails the layer with LoginThrottleError (connect)", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        Effect.scoped(
          Layer.build(
            LoginThrottle.layerRedis({ url: "redis://127.0.0.1:1", connectTimeout: "2 seconds" })
          )
        )
      )
      expect(error).toBeInstanceOf(LoginThrottleError)
      expect(error.operation).toBe("connect")
      expect(error.message).toMatch(/^Login throttle failed to connect/)
    })
  )
})

describe.skipIf(!hasRedis)(`LoginThrottle.layerRedis (Effect ${LINE})`, () => {
  it.live("bad keys throw at the call, as on the memory throttle (a programming error)", () =>
    Effect.gen(function* () {
      const throttle = yield* onRedis(freshPrefix())
      const message = "keys must be a string or an array of strings, got"
      expect(() => throttle.check(42 as never)).toThrow(`LoginThrottle.check: ${message} 42`)
      expect(() => throttle.failure([1] as never)).toThrow(`LoginThrottle.failure: ${message}`)
      expect(() => throttle.success([null] as never)).toThrow(`LoginThrottle.success: ${message}`)
    }).pipe(Effect.scoped)
  )

  it.live("two instances (two connections) share counts, locks and clears", () =>
    Effect.gen(function* () {
      const prefix = freshPrefix()
      const first = yield* onRedis(prefix)
      const second = yield* onRedis(prefix)
      yield* failTimes(first, "account:alice", 3)
      yield* failTimes(second, "account:alice", 2)
      const left = yield* checked(first, "account:alice")
      expect(left).toBeGreaterThan(WINDOW - 5_000)
      expect(left).toBeLessThanOrEqual(WINDOW)
      expect(yield* checked(second, ["account:bob", "account:alice"])).toBeTypeOf("number")
      yield* second.success("account:alice")
      expect(yield* checked(first, "account:alice")).toBe("ok")
      // what Redis holds: the prefix, the namespace, the key encoded
      const raw = yield* rawClient
      yield* first.failure(["a b", "__proto__"])
      const keys = yield* Effect.promise(() => raw.keys(`${prefix}*`))
      expect(keys.sort()).toEqual([`${prefix}throttle:__proto__`, `${prefix}throttle:a%0020b`])
    }).pipe(Effect.scoped)
  )

  it.live("50 concurrent failures count exactly 50, and the lock expires with the window", () =>
    Effect.gen(function* () {
      const prefix = freshPrefix()
      const first = yield* onRedis(prefix, { maxAttempts: 50, window: "2 seconds" })
      const second = yield* onRedis(prefix, { maxAttempts: 50, window: "2 seconds" })
      yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? first : second)),
        (throttle) => throttle.failure("account:alice"),
        { concurrency: "unbounded", discard: true }
      )
      const raw = yield* rawClient
      expect(yield* Effect.promise(() => raw.get(`${prefix}throttle:account:alice`))).toBe("50")
      const ttl = yield* Effect.promise(() => raw.pttl(`${prefix}throttle:account:alice`))
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(2_000)
      expect(yield* checked(first, "account:alice")).toBeTypeOf("number")
      yield* Effect.sleep(Duration.millis(ttl + 50))
      expect(yield* checked(first, "account:alice")).toBe("ok")
    }).pipe(Effect.scoped)
  )

  it.live("attempts made at once on two instances are bounded: 100 at once, 5 pass", () =>
    Effect.gen(function* () {
      const prefix = freshPrefix()
      const first = yield* onRedis(prefix)
      const second = yield* onRedis(prefix)
      const keys = ["account:alice", "address:203.0.113.7"]
      const [a, b] = yield* Effect.all([atOnce(first, keys, 50), atOnce(second, keys, 50)], {
        concurrency: "unbounded"
      })
      expect(a + b).toBe(5)
      expect(yield* checked(first, keys)).toBeTypeOf("number")
      expect(yield* checked(second, "account:alice")).toBeTypeOf("number")
    }).pipe(Effect.scoped)
  )

  it.live("an attempt's report ends it however it checked: twice, or under Effect.timeout", () =>
    Effect.gen(function* () {
      expect(yield* reportedAttempts(yield* onRedis(freshPrefix(), { maxAttempts: 4 }))).toBe("ok")
    }).pipe(Effect.scoped)
  )

  it.live(
    "an attempt that succeeds frees every key it checked: sign-ins from one address never lock it",
    () =>
      Effect.gen(function* () {
        const throttle = yield* onRedis(freshPrefix(), { maxAttempts: 3 })
        yield* signIns(throttle, "address:10.0.0.1", 10)
        expect(yield* checked(throttle, "address:10.0.0.1")).toBe("ok")
      }).pipe(Effect.scoped)
  )

  it.live("check is one round trip for all its keys (MONITOR)", () =>
    Effect.gen(function* () {
      const prefix = freshPrefix()
      const throttle = yield* onRedis(prefix, { maxAttempts: 1 })
      yield* throttle.failure(["a", "b"])
      yield* throttle.check("warm-up") // loads the script once (EVALSHA, then EVAL)
      const seen = yield* monitored(Effect.exit(throttle.check(["a", "b", "c"])))
      expect(seen.map((command) => command[0]?.toLowerCase())).toEqual(["evalsha"])
    }).pipe(Effect.scoped)
  )

  it.live(
    "a restart of Redis keeps the lock; while Redis is away check fails closed",
    () =>
      Effect.gen(function* () {
        const prefix = freshPrefix()
        const throttle = yield* onRedis(prefix, { commandTimeout: "1 second" })
        yield* failTimes(throttle, "account:alice", 5)
        expect(yield* checked(throttle, "account:alice")).toBeTypeOf("number")
        yield* Effect.promise(() => redis?.stop() ?? Promise.resolve())
        const away = yield* Effect.flip(throttle.check("account:alice"))
        expect(away).toBeInstanceOf(LoginThrottleError)
        expect(away.message).toBe("Login throttle failed to check attempts")
        expect((yield* Effect.flip(throttle.failure("account:alice")))._tag).toBe(
          "LoginThrottleError"
        )
        yield* Effect.promise(() => redis?.start() ?? Promise.resolve())
        // while the connection comes back, check fails (closed); then the lock is there
        let answer: number | string = "LoginThrottleError"
        for (let attempt = 0; attempt < 100 && answer === "LoginThrottleError"; attempt++) {
          answer = yield* checked(throttle, "account:alice")
          if (answer === "LoginThrottleError") yield* Effect.sleep(Duration.millis(50))
        }
        expect(answer).toBeTypeOf("number")
        expect(answer).toBeGreaterThan(WINDOW - 30_000)
      }).pipe(Effect.scoped),
    20_000
  )
})

/**
 * The commands clients sent Redis while `self` ran (MONITOR; those a script ran are left out),
 * between two markers sent from another connection.
 */
const monitored = <A, E>(self: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const monitor = yield* Effect.acquireRelease(
      Effect.promise(() => new Redis(redis?.url ?? "", { lazyConnect: true }).monitor()),
      (client) => Effect.sync(() => client.disconnect())
    )
    const raw = yield* rawClient
    const seen: Array<ReadonlyArray<string>> = []
    const marker = `marker-${Math.random()}`
    let state: "before" | "during" | "after" = "before"
    const markers: Array<() => void> = []
    const markerSeen = (n: number) =>
      new Promise<void>((resolve) => {
        markers[n] = resolve
      })
    const started = markerSeen(0)
    const ended = markerSeen(1)
    monitor.on("monitor", (_time: string, args: Array<string>, source: string) => {
      if (args[0]?.toLowerCase() === "echo" && args[1] === marker) {
        markers[state === "before" ? 0 : 1]?.()
        state = state === "before" ? "during" : "after"
      } else if (state === "during" && source !== "lua") seen.push(args)
    })
    yield* Effect.promise(() => raw.echo(marker))
    yield* Effect.promise(() => started)
    yield* self
    yield* Effect.promise(() => raw.echo(marker))
    yield* Effect.promise(() => ended)
    return seen
  })
