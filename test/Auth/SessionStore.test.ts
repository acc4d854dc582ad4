/**
 * The session stores: the shared contract (test/Auth/shared/sessionStore.ts) over memory, the file
 * system (the line's `KeyValueStore`) and a real `redis-server`, then what is particular to each
 * layer: a restart, a failing store, and a Redis that never answers. Shared: run on both Effect
 * lines (lineKit.ts).
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { SessionValidator } from "../../src/v3/Auth/index.js"
import { SessionStore, SessionStoreError } from "../../src/v3/Auth/SessionStore.js"
import { REDIS_SERVER, type RedisServer, startRedis } from "../support/redis.js"
import {
  brokenKeyValueStore,
  callback,
  fork,
  isRunning,
  LINE,
  NodePlatform,
  TestClock,
  timeoutFail,
  unwrapLayer
} from "./lineKit.js"
import {
  type Backend,
  dumpDirectory,
  dumpRedis,
  redisInstances,
  storeContract
} from "./shared/sessionStore.js"

const hasRedis = existsSync(REDIS_SERVER)

const alice = { user_id: "u-restart", email: "alice@example.com", user_type: "admin", team: "core" }

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex")

if (!hasRedis) console.warn(`Skipping the Redis store suite: ${REDIS_SERVER} is absent.`)
let redis: RedisServer | undefined
beforeAll(async () => {
  if (hasRedis) redis = await startRedis()
}, 30_000)
afterAll(() => redis?.dispose())

/** A `redis-cli` command's answer from the Redis on `port`. */
const redisCli = (port: number | undefined, ...args: Array<string>) =>
  execFileSync("/usr/bin/redis-cli", ["-p", String(port), "--raw", ...args], { encoding: "utf8" })

const redisCommand = (...args: Array<string>) => redisCli(redis?.port, ...args)

const directory = mkdtempSync(join(tmpdir(), `svc-sessions-v${LINE}-`))

/** A backend of the shared contract over one of this line's layers. */
const backend = (
  layer: () => Layer.Layer<SessionStore, unknown>,
  rest: Omit<Backend, "run" | "validatorOf">
): Backend => ({
  run: (body) => Effect.scoped(Effect.provide(Effect.flatMap(SessionStore, body), layer())),
  validatorOf: (store) =>
    Effect.provide(
      SessionValidator,
      SessionStore.validator.pipe(
        Layer.provide(Layer.succeed(SessionStore, store as SessionStore["Type"]))
      )
    ),
  ...rest
})

/** Redis's time unit in the contract's cases: 2 s. */
const REDIS_UNIT = 2_000

storeContract(`Effect ${LINE}`, {
  memory: backend(() => SessionStore.layerMemory({ ttl: "1 hour" }), {
    advance: (units) => TestClock.adjust(Duration.minutes(units)),
    unit: 60_000,
    live: true
  }),
  fileSystem: backend(
    () =>
      SessionStore.layerFileSystem(directory, { ttl: "1 hour" }).pipe(Layer.provide(NodePlatform)),
    {
      advance: (units) => TestClock.adjust(Duration.minutes(units)),
      unit: 60_000,
      dump: () => dumpDirectory(directory),
      live: true
    }
  ),
  redis: backend(
    () =>
      unwrapLayer(
        Effect.sync(() => SessionStore.layerRedis({ url: redis?.url ?? "", ttl: "1 hour" }))
      ),
    {
      // Redis keeps time itself: real time, in units long enough for a loaded machine's delays
      // (its cases run at once, so their waits overlap)
      advance: (units) =>
        Effect.promise(() => new Promise((done) => setTimeout(done, units * REDIS_UNIT))),
      unit: REDIS_UNIT,
      dump: () => dumpRedis(redisCommand),
      live: hasRedis,
      concurrent: true
    }
  )
})

/** Two stores on the shared Redis, each with its own connection, for the rest of the scope. */
const twoRedisStores = Effect.gen(function* () {
  const layer = () => SessionStore.layerRedis({ url: redis?.url ?? "", ttl: "1 hour" })
  const first = yield* Effect.provide(SessionStore, yield* Layer.build(layer()))
  const second = yield* Effect.provide(SessionStore, yield* Layer.build(layer()))
  return [first, second] as const
})

redisInstances(`Effect ${LINE}`, {
  live: hasRedis,
  runTwo: (body) =>
    Effect.scoped(Effect.flatMap(twoRedisStores, ([first, second]) => body(first, second))),
  restart: async () => {
    await redis?.stop()
    await redis?.start()
  }
})

describe("SessionStore.layerMemory", () => {
  it.effect("each layer is a store of its own, even where one app builds two", () =>
    Effect.gen(function* () {
      const stores: Array<SessionStore["Type"]> = []
      const capture = (layer: Layer.Layer<SessionStore>) =>
        Layer.effectDiscard(Effect.map(SessionStore, (store) => stores.push(store))).pipe(
          Layer.provide(layer)
        )
      yield* Layer.build(
        Layer.merge(capture(SessionStore.layerMemory()), capture(SessionStore.layerMemory()))
      )
      const [first, second] = stores
      if (first === undefined || second === undefined) throw new Error("two stores")
      const id = yield* first.create(alice)
      expect(Option.isSome(yield* first.get(id))).toBe(true)
      expect(yield* second.get(id)).toEqual(Option.none())
      expect(yield* second.list(alice.user_id)).toEqual([])
    }).pipe(Effect.scoped)
  )
})

describe("SessionStore.layerFileSystem", () => {
  it.effect("keeps sessions across a restart and never writes the id to disk", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), `svc-restart-v${LINE}-`))
      const open = SessionStore.layerFileSystem(dir).pipe(Layer.provide(NodePlatform))
      const id = yield* Effect.flatMap(SessionStore, (s) => s.create(alice)).pipe(
        Effect.provide(open)
      )
      const found = yield* Effect.flatMap(SessionStore, (s) => s.get(id)).pipe(Effect.provide(open))
      expect(found).toEqual(Option.some(alice))
      const files = readdirSync(dir).sort()
      expect(files).toEqual([
        `session-${sha256(Redacted.value(id))}`,
        `user-${sha256(alice.user_id)}`
      ])
      const secret = Redacted.value(id)
      for (const file of files) expect(readFileSync(join(dir, file), "utf8")).not.toContain(secret)
      rmSync(dir, { recursive: true, force: true })
    })
  )

  it.effect(
    "a user's ended sessions leave the store when the user signs in again: the index holds live ones only",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), `svc-prune-v${LINE}-`))
        const open = SessionStore.layerFileSystem(dir, { ttl: "1 minute" }).pipe(
          Layer.provide(NodePlatform)
        )
        const heavy = { user_id: "u-heavy" }
        const signIn = Effect.flatMap(SessionStore, (s) => s.create(heavy)).pipe(
          Effect.provide(open)
        )
        for (let i = 0; i < 3; i++) yield* signIn
        expect(readdirSync(dir)).toHaveLength(4)
        yield* TestClock.adjust(Duration.minutes(2))
        const id = yield* signIn
        // the three expired sessions are gone; the index lists the one live session
        const files = readdirSync(dir).sort()
        expect(files).toEqual([
          `session-${sha256(Redacted.value(id))}`,
          `user-${sha256(heavy.user_id)}`
        ])
        expect(
          JSON.parse(readFileSync(join(dir, `user-${sha256(heavy.user_id)}`), "utf8"))
        ).toEqual([`session-${sha256(Redacted.value(id))}`])
        rmSync(dir, { recursive: true, force: true })
      })
  )

  it.effect(
    "sessions nobody presents again, of users who never sign in again, leave the store as it grows",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), `svc-sweep-v${LINE}-`))
        const open = SessionStore.layerFileSystem(dir, { ttl: "1 minute" }).pipe(
          Layer.provide(NodePlatform)
        )
        yield* Effect.gen(function* () {
          const store = yield* SessionStore
          // one-off visitors: a session each, never seen again
          for (let i = 0; i < 1_000; i++) yield* store.create({ user_id: `once-${i}` })
          expect(readdirSync(dir)).toHaveLength(2_000)
          yield* TestClock.adjust(Duration.minutes(2))
          // the store grows past what it swept last (1,024 sessions written): it sweeps
          for (let i = 0; i < 30; i++) yield* store.create({ user_id: `later-${i}` })
        }).pipe(Effect.provide(open))
        // the 1,000 ended sessions and their users' indexes are gone; the 30 live ones stay
        const files = readdirSync(dir)
        expect(files).toHaveLength(60)
        expect(files).toContain(`user-${sha256("later-0")}`)
        expect(files).not.toContain(`user-${sha256("once-0")}`)
        rmSync(dir, { recursive: true, force: true })
      })
  )

  it.effect(
    "sessions an earlier process wrote leave the store once another opens it: the ended ones at once, the others as they end",
    () =>
      Effect.gen(function* () {
        const dir = mkdtempSync(join(tmpdir(), `svc-adopt-v${LINE}-`))
        const open = () =>
          SessionStore.layerFileSystem(dir, { ttl: "1 minute" }).pipe(Layer.provide(NodePlatform))
        // an earlier process: one-off sessions that end in a minute, and some that last an hour
        yield* Effect.gen(function* () {
          const store = yield* SessionStore
          for (let i = 0; i < 50; i++) yield* store.create({ user_id: `once-${i}` })
          for (let i = 0; i < 10; i++)
            yield* store.create({ user_id: `kept-${i}` }, { ttl: "1 hour" })
        }).pipe(Effect.provide(open()))
        expect(readdirSync(dir)).toHaveLength(120)
        // a file of the application's beside them, named like an index: not the store's
        writeFileSync(join(dir, "user-preferences.json"), JSON.stringify(["dark-mode"]))
        yield* TestClock.adjust(Duration.minutes(2))
        yield* Effect.gen(function* () {
          const store = yield* SessionStore
          // the store takes the earlier sessions in beside its work: wait for it (file I/O)
          for (let turn = 0; turn < 10_000 && readdirSync(dir).length > 21; turn++) {
            yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          }
          const files = readdirSync(dir)
          expect(files).toHaveLength(21)
          expect(files).toContain("user-preferences.json")
          expect(files).toContain(`user-${sha256("kept-0")}`)
          expect(files).not.toContain(`user-${sha256("once-0")}`)
          expect((yield* store.list("kept-0")).length).toBe(1)
          // the hour ends: the kept sessions leave with the next sweep, as the store grows
          yield* TestClock.adjust(Duration.hours(1))
          for (let i = 0; i < 1_014; i++) yield* store.create({ user_id: `later-${i}` })
        }).pipe(Effect.provide(open()))
        const files = readdirSync(dir)
        expect(files).toHaveLength(2 * 1_014 + 1)
        expect(files).not.toContain(`user-${sha256("kept-0")}`)
        rmSync(dir, { recursive: true, force: true })
      })
  )

  it.effect(
    "makes its directory readable by its owner only (0700), and leaves one that exists as it is",
    () =>
      Effect.gen(function* () {
        const parent = mkdtempSync(join(tmpdir(), `svc-mode-v${LINE}-`))
        const made = join(parent, "sessions", "nested")
        yield* Effect.flatMap(SessionStore, (s) => s.create(alice)).pipe(
          Effect.provide(SessionStore.layerFileSystem(made).pipe(Layer.provide(NodePlatform)))
        )
        expect(statSync(made).mode & 0o777).toBe(0o700)
        expect(statSync(join(parent, "sessions")).mode & 0o777).toBe(0o700)
        const existing = join(parent, "existing")
        mkdirSync(existing, { mode: 0o750 })
        chmodSync(existing, 0o750)
        yield* Effect.flatMap(SessionStore, (s) => s.create(alice)).pipe(
          Effect.provide(SessionStore.layerFileSystem(existing).pipe(Layer.provide(NodePlatform)))
        )
        expect(statSync(existing).mode & 0o777).toBe(0o750)
        rmSync(parent, { recursive: true, force: true })
      })
  )
})

describe("SessionStore failures", () => {
  const layer = SessionStore.layerKeyValueStore().pipe(Layer.provide(brokenKeyValueStore))

  it.effect(
    "a store failure is a SessionStoreError without the id, and makes the validator unavailable",
    () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const id = Redacted.make("secret-session-id")
        const error = yield* Effect.flip(sessions.get(id))
        expect(error).toBeInstanceOf(SessionStoreError)
        expect(error.message).toBe("Session store failed to get a session")
        expect(JSON.stringify(error)).not.toContain("secret-session-id")
        const unavailable = yield* Effect.flip(
          Effect.flatMap(SessionValidator, (v) => v.validate(id)).pipe(
            Effect.provide(SessionStore.validator)
          )
        )
        expect(unavailable._tag).toBe("SessionValidatorUnavailable")
        expect((yield* Effect.flip(sessions.create(alice))).operation).toBe("create")
      }).pipe(Effect.provide(layer))
  )

  it("rejects a ttl that is not a positive finite duration", () => {
    expect(() => SessionStore.layerMemory({ ttl: 0 })).toThrow(RangeError)
    expect(() => SessionStore.layerMemory({ ttl: "Infinity" as never })).toThrow(/ttl/)
  })
})

/**
 * A TCP server on a free loopback port that accepts every connection and never answers. `accepted`
 * settles at the first connection; `closed` once every connection it accepted is closed again.
 */
const silentServer = Effect.acquireRelease(
  callback<{
    readonly url: string
    readonly accepted: Promise<void>
    readonly closed: () => Promise<void>
    readonly server: Net.Server
    readonly sockets: Set<Net.Socket>
  }>((resume) => {
    const sockets = new Set<Net.Socket>()
    const closings: Array<Promise<void>> = []
    let onAccepted = () => {}
    const accepted = new Promise<void>((done) => {
      onAccepted = done
    })
    const server = Net.createServer((socket) => {
      socket.resume()
      sockets.add(socket)
      closings.push(new Promise((done) => socket.once("close", () => done())))
      onAccepted()
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      resume(
        Effect.succeed({
          url: `redis://127.0.0.1:${port}`,
          accepted,
          closed: () => Promise.all(closings).then(() => undefined),
          server,
          sockets
        })
      )
    })
  }),
  ({ server, sockets }) =>
    callback<void>((resume) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resume(Effect.void))
    })
)

/** Builds the Redis layer alone and answers its failure, or fails when it builds. */
const redisLayerFailure = (options: Parameters<typeof SessionStore.layerRedis>[0]) =>
  Effect.flip(Effect.scoped(Layer.build(SessionStore.layerRedis(options))))

describe("SessionStore.layerRedis against a Redis that accepts and never answers", () => {
  /** What a short connectTimeout may be overrun by: timers, the ioredis import, a shared CPU. */
  const margin = 1_000

  it.live.skipIf(!hasRedis)(
    "fails within connectTimeout against a frozen redis-server (SIGSTOP)",
    () =>
      Effect.gen(function* () {
        const frozen = yield* Effect.acquireRelease(
          Effect.promise(() => startRedis()),
          (server) => Effect.promise(() => server.dispose())
        )
        frozen.freeze()
        const [elapsed, error] = yield* Effect.timed(
          redisLayerFailure({
            url: frozen.url,
            connectTimeout: "300 millis",
            commandTimeout: "300 millis"
          })
        )
        expect(error).toBeInstanceOf(SessionStoreError)
        expect(error.operation).toBe("connect")
        expect(error.message).toMatch(/connectTimeout/)
        expect(Duration.toMillis(elapsed)).toBeLessThan(300 + margin)
      }).pipe(Effect.scoped)
  )

  it.live(
    "fails within connectTimeout against a server that never answers, and closes its connection",
    () =>
      Effect.gen(function* () {
        const silent = yield* silentServer
        const [elapsed, error] = yield* Effect.timed(
          redisLayerFailure({ url: silent.url, connectTimeout: "300 millis" })
        )
        expect(error).toBeInstanceOf(SessionStoreError)
        expect(error.operation).toBe("connect")
        expect(Duration.toMillis(elapsed)).toBeLessThan(300 + margin)
        // the client is gone: no connection (nor reconnection) is left open
        yield* timeoutFail(
          Effect.promise(silent.closed),
          "1 second",
          () => new Error("the Redis client left its connection open")
        )
      }).pipe(Effect.scoped)
  )

  it.effect(
    "with the defaults, fails once connectTimeout (10 s) has passed, with a message naming it",
    () =>
      Effect.gen(function* () {
        const silent = yield* silentServer
        const fiber = yield* fork(redisLayerFailure({ url: silent.url }))
        yield* Effect.promise(() => silent.accepted)
        yield* TestClock.adjust(Duration.millis(9_999))
        expect(yield* isRunning(fiber)).toBe(true)
        yield* TestClock.adjust(Duration.millis(1))
        const error = yield* Fiber.join(fiber)
        expect(error).toBeInstanceOf(SessionStoreError)
        expect(error.operation).toBe("connect")
        expect(error.message).toBe(
          "Session store failed to connect: the Redis server did not answer within connectTimeout (10s)"
        )
      }).pipe(Effect.scoped),
    15_000
  )
})

describe("SessionStore.validator's own bound", () => {
  const boundOf = (layer: Layer.Layer<SessionStore, unknown>) =>
    Effect.map(
      Effect.provide(SessionValidator, SessionStore.validator.pipe(Layer.provide(layer))),
      (validator) => validator.answersWithinMillis
    )

  it.effect.skipIf(!hasRedis)(
    "over Redis: the commandTimeout (a guard with no shorter timeout sets no timer)",
    () =>
      Effect.gen(function* () {
        const redisLayer = unwrapLayer(
          Effect.sync(() =>
            SessionStore.layerRedis({ url: redis?.url ?? "", commandTimeout: "2 seconds" })
          )
        )
        expect(yield* boundOf(redisLayer)).toBe(2_000)
        expect(yield* boundOf(SessionStore.layerMemory())).toBeUndefined()
      }).pipe(Effect.scoped)
  )
})

describe("SessionStore.layerRedis's touch within its commandTimeout", () => {
  it.effect.skipIf(!hasRedis)(
    "a use whose script Redis holds back fails once the commandTimeout is up, the read before it included (TestClock)",
    () =>
      Effect.gen(function* () {
        const own = yield* Effect.acquireRelease(
          Effect.promise(() => startRedis()),
          (server) => Effect.promise(() => server.dispose())
        )
        // ioredis's own limit per command is a minute of real time: only the store's bound ends
        // the touch here
        const sessions = yield* Effect.provide(
          SessionStore,
          yield* Layer.build(SessionStore.layerRedis({ url: own.url, commandTimeout: "1 minute" }))
        )
        const id = yield* sessions.create(alice)
        // the first use runs the script (it reads Redis's clock), a write: Redis holds it back
        redisCli(own.port, "client", "pause", "30000", "write")
        const fiber = yield* fork(Effect.flip(sessions.touch(id)))
        // a minute of the test clock at a time, until the read has answered and the script's bound,
        // which starts after it, is up (a real Redis answers between the steps)
        for (let step = 0; step < 200 && (yield* isRunning(fiber)); step++) {
          yield* TestClock.adjust(Duration.minutes(1))
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
        }
        expect(yield* isRunning(fiber)).toBe(false)
        const error = yield* Fiber.join(fiber)
        expect(error).toBeInstanceOf(SessionStoreError)
        expect(error.operation).toBe("touch")
        redisCli(own.port, "client", "unpause")
      }).pipe(Effect.scoped),
    30_000
  )
})

describe("SessionStore.layerRedis in steady use", () => {
  /** The calls of each command Redis ran since its statistics were last reset (scripts' own included). */
  const calls = (port: number): Record<string, number> => {
    const info = redisCli(port, "info", "commandstats")
    const counted: Record<string, number> = {}
    for (const [, command, count] of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm))
      counted[command!] = Number(count)
    return counted
  }

  it.live.skipIf(!hasRedis)(
    "a use that is not due is one plain read; a due one runs the script, which writes it down",
    () =>
      Effect.gen(function* () {
        const own = yield* Effect.acquireRelease(
          Effect.promise(() => startRedis()),
          (server) => Effect.promise(() => server.dispose())
        )
        const resetCalls = () => redisCli(own.port, "config", "resetstat")
        const seen = (key: string) => Number(redisCli(own.port, "hget", key, "seen"))
        const sessions = yield* Effect.provide(
          SessionStore,
          yield* Layer.build(SessionStore.layerRedis({ url: own.url, ttl: "1 hour" }))
        )
        // a use is due 2 s after the last one written down (40 s / 20)
        const id = yield* sessions.create(alice, { idleTimeout: Duration.seconds(40) })
        const key = `svc-sdk:session:${sha256(Redacted.value(id))}`
        const created = seen(key)
        // the first use reads Redis's clock (the script); it is not due
        expect(yield* sessions.touch(id)).toEqual(Option.some(alice))
        resetCalls()
        for (let use = 0; use < 20; use++)
          expect(yield* sessions.touch(id)).toEqual(Option.some(alice))
        expect(calls(own.port)).toEqual({ hmget: 20 })
        expect(seen(key)).toBe(created)

        yield* Effect.sleep(Duration.millis(2_100))
        resetCalls()
        expect(yield* sessions.touch(id)).toEqual(Option.some(alice))
        expect(calls(own.port)).toEqual({ hmget: 2, evalsha: 1, time: 1, hset: 1, pexpireat: 1 })
        const written = seen(key)
        expect(written - created).toBeGreaterThanOrEqual(2_000)
        // written down: the next uses are plain reads again
        resetCalls()
        yield* sessions.touch(id)
        yield* sessions.touch(id)
        expect(calls(own.port)).toEqual({ hmget: 2 })
        // last seen after this instance's reading of Redis's clock (another instance's clock
        // reading ran ahead, or this one's fell behind): the script reads the clock again, and
        // writes nothing, the use not being due
        const ahead = written + 5_000
        redisCli(own.port, "hset", key, "seen", String(ahead))
        resetCalls()
        expect(yield* sessions.touch(id)).toEqual(Option.some(alice))
        expect(calls(own.port)).toEqual({ hmget: 2, evalsha: 1, time: 1 })
        expect(seen(key)).toBe(ahead)
        // gone: one read, no script
        yield* sessions.revoke(id)
        resetCalls()
        expect(yield* sessions.touch(id)).toEqual(Option.none())
        expect(calls(own.port)).toEqual({ hmget: 1 })
      }).pipe(Effect.scoped),
    30_000
  )
})
