import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SystemError } from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { NodeContext } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import { SessionValidator } from "../../src/v3/Auth/index.js"
import { SessionStore, SessionStoreError } from "../../src/v3/Auth/SessionStore.js"
import { REDIS_SERVER, type RedisServer, startRedis } from "../support/redis.js"

const hasRedis = existsSync(REDIS_SERVER)

let users = 0
/** A user of its own per test, so that `revokeUser` counts only that test's sessions. */
const someone = (fields: Record<string, unknown> = {}) => ({
  user_id: `u-${++users}`,
  email: "alice@example.com",
  user_type: "admin",
  team: "core",
  ...fields
})
const alice = someone()

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex")

if (!hasRedis) console.warn(`Skipping the Redis store suite: ${REDIS_SERVER} is absent.`)
let redis: RedisServer | undefined
beforeAll(async () => {
  if (hasRedis) redis = await startRedis()
}, 30_000)
afterAll(() => redis?.dispose())

const redisCommand = (...args: Array<string>) =>
  execFileSync("/usr/bin/redis-cli", ["-p", String(redis?.port), "--raw", ...args], {
    encoding: "utf8"
  })

/**
 * One backend of the store contract. Time is counted in `unit`s: TestClock minutes where the store
 * reads Effect's clock, real 150 ms steps for Redis, whose own clock and key expiry end sessions.
 */
interface Backend {
  readonly layer: () => Layer.Layer<SessionStore, unknown>
  readonly advance: (units: number) => Effect.Effect<void>
  readonly unit: number
  /** Everything the store holds, as text; undefined where it cannot be read from outside. */
  readonly dump?: () => string
}

const directory = mkdtempSync(join(tmpdir(), "svc-sessions-"))
const backends: Record<string, Backend> = {
  memory: {
    layer: () => SessionStore.layerMemory({ ttl: "1 hour" }),
    advance: (units) => TestClock.adjust(Duration.minutes(units)),
    unit: 60_000
  },
  fileSystem: {
    layer: () =>
      SessionStore.layerFileSystem(directory, { ttl: "1 hour" }).pipe(
        Layer.provide(NodeContext.layer)
      ),
    advance: (units) => TestClock.adjust(Duration.minutes(units)),
    unit: 60_000,
    dump: () =>
      readdirSync(directory)
        .map((file) => `${file}\n${readFileSync(join(directory, file), "utf8")}`)
        .join("\n")
  },
  redis: {
    layer: () =>
      Layer.unwrapEffect(
        Effect.sync(() => SessionStore.layerRedis({ url: redis?.url ?? "", ttl: "1 hour" }))
      ),
    advance: (units) => Effect.promise(() => new Promise((done) => setTimeout(done, units * 150))),
    unit: 150,
    dump: () =>
      redisCommand("KEYS", "*")
        .split("\n")
        .filter((key) => key.length > 0)
        .map(
          (key) =>
            `${key}\n${redisCommand("TYPE", key).trim() === "hash" ? redisCommand("HGETALL", key) : redisCommand("SMEMBERS", key)}`
        )
        .join("\n")
  }
}

describe.each(Object.entries(backends))("SessionStore contract: %s", (name, backend) => {
  const live = name !== "redis" || hasRedis
  const test = (title: string, body: () => Effect.Effect<void, unknown, SessionStore>) =>
    it.effect.skipIf(!live)(title, () => Effect.scoped(Effect.provide(body(), backend.layer())))
  const span = (units: number) => Duration.millis(units * backend.unit)

  test("creates a session and gets it back with every field", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const id = yield* sessions.create(alice)
      expect(yield* sessions.get(id)).toEqual(Option.some(alice))
      expect(yield* sessions.touch(id)).toEqual(Option.some(alice))
    }))

  test("issues distinct 256-bit base64url ids", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const ids = yield* Effect.forEach(Array.from({ length: 20 }), () => sessions.create(alice))
      const raw = ids.map(Redacted.value)
      expect(new Set(raw).size).toBe(20)
      for (const id of raw) expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    }))

  test("revokes a session; revoking an unknown id succeeds", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const id = yield* sessions.create(alice)
      yield* sessions.revoke(id)
      expect(yield* sessions.get(id)).toEqual(Option.none())
      expect(yield* sessions.touch(id)).toEqual(Option.none())
      yield* sessions.revoke(Redacted.make("never-issued"))
      expect(() => sessions.create(alice, { ttl: -1 })).toThrow(RangeError)
      expect(() => sessions.create(alice, { idleTimeout: "forever" as never })).toThrow(
        /idleTimeout/
      )
    }))

  test("ends a session at its absolute ttl, the default or its own", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const long = yield* sessions.create(alice, { ttl: span(8) })
      const short = yield* sessions.create(alice, { ttl: span(4) })
      yield* backend.advance(3)
      expect(Option.isSome(yield* sessions.get(short))).toBe(true)
      yield* backend.advance(2)
      expect(yield* sessions.get(short)).toEqual(Option.none())
      expect(Option.isSome(yield* sessions.touch(long))).toBe(true)
      yield* backend.advance(4)
      expect(yield* sessions.get(long)).toEqual(Option.none())
    }))

  test("ends a session unused for its idle timeout; touch moves the deadline, get does not", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const id = yield* sessions.create(alice, { ttl: span(20), idleTimeout: span(3) })
      yield* backend.advance(2)
      expect(Option.isSome(yield* sessions.touch(id))).toBe(true)
      yield* backend.advance(2)
      expect(Option.isSome(yield* sessions.get(id))).toBe(true)
      yield* backend.advance(2)
      expect(yield* sessions.get(id)).toEqual(Option.none())
      expect(yield* sessions.touch(id)).toEqual(Option.none())
    }))

  test("touch never moves a session past its absolute end", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const id = yield* sessions.create(alice, { ttl: span(8), idleTimeout: span(6) })
      yield* backend.advance(4)
      expect(Option.isSome(yield* sessions.touch(id))).toBe(true)
      yield* backend.advance(5)
      expect(yield* sessions.touch(id)).toEqual(Option.none())
    }))

  test("revokes every session of one user and no other", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const carol = someone()
      const bob = someone()
      const first = yield* sessions.create(carol)
      const second = yield* sessions.create(carol)
      const other = yield* sessions.create(bob)
      expect(yield* sessions.revokeUser(carol.user_id)).toBe(2)
      expect(yield* sessions.get(first)).toEqual(Option.none())
      expect(yield* sessions.get(second)).toEqual(Option.none())
      expect(Option.isSome(yield* sessions.get(other))).toBe(true)
      expect(yield* sessions.revokeUser(carol.user_id)).toBe(0)
      const again = yield* sessions.create(carol)
      expect(Option.isSome(yield* sessions.get(again))).toBe(true)
      expect(() => sessions.revokeUser("")).toThrow(TypeError)
    }))

  test("is a SessionValidator through SessionStore.validator, which touches what it validates", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const id = yield* sessions.create(alice, { ttl: span(20), idleTimeout: span(3) })
      const validator = yield* Effect.provide(
        SessionValidator,
        SessionStore.validator.pipe(Layer.provide(Layer.succeed(SessionStore, sessions)))
      )
      yield* backend.advance(2)
      expect(yield* validator.validate(id)).toEqual(Option.some(alice))
      yield* backend.advance(2)
      expect(yield* validator.validate(id)).toEqual(Option.some(alice))
      expect(yield* validator.validate(Redacted.make("unknown"))).toEqual(Option.none())
    }))

  if (backend.dump !== undefined) {
    const dump = backend.dump
    test("keeps ids and user ids only as their SHA-256", () =>
      Effect.gen(function* () {
        const sessions = yield* SessionStore
        const user = someone()
        const id = Redacted.value(yield* sessions.create(user))
        const stored = dump()
        expect(stored).toContain(sha256(id))
        expect(stored).toContain(sha256(user.user_id))
        expect(stored).not.toContain(id)
      }))
  }
})

describe("SessionStore.layerFileSystem", () => {
  it.effect("keeps sessions across a restart and never writes the id to disk", () =>
    Effect.gen(function* () {
      const dir = mkdtempSync(join(tmpdir(), "svc-restart-"))
      const open = SessionStore.layerFileSystem(dir).pipe(Layer.provide(NodeContext.layer))
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
})

describe("SessionStore failures", () => {
  const broken = KeyValueStore.makeStringOnly({
    get: () =>
      Effect.fail(new SystemError({ reason: "Unknown", module: "KeyValueStore", method: "get" })),
    set: () =>
      Effect.fail(new SystemError({ reason: "Unknown", module: "KeyValueStore", method: "set" })),
    remove: () => Effect.void,
    clear: Effect.void,
    size: Effect.succeed(0)
  })
  const layer = SessionStore.layerKeyValueStore().pipe(
    Layer.provide(Layer.succeed(KeyValueStore.KeyValueStore, broken))
  )

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
  Effect.async<{
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
    Effect.async<void>((resume) => {
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
        yield* Effect.promise(silent.closed).pipe(
          Effect.timeoutFail({
            duration: "1 second",
            onTimeout: () => new Error("the Redis client left its connection open")
          })
        )
      }).pipe(Effect.scoped)
  )

  it.effect(
    "with the defaults, fails once connectTimeout (10 s) has passed, with a message naming it",
    () =>
      Effect.gen(function* () {
        const silent = yield* silentServer
        const fiber = yield* Effect.fork(redisLayerFailure({ url: silent.url }))
        yield* Effect.promise(() => silent.accepted)
        yield* TestClock.adjust(Duration.millis(9_999))
        expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
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
