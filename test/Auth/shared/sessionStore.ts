/**
 * The session store contract (SPEC 6.5), on both Effect lines: each line gives its layers (memory,
 * file system, Redis) and how time passes for them, and the suite runs the same cases over each.
 * The cases use only Effect API both lines share.
 */
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/** What the suite calls of a store (methods: either line's service fits). */
export interface StoreUnderTest {
  create(
    session: { readonly user_id: string } & Record<string, unknown>,
    options?: { readonly ttl?: Duration.Duration; readonly idleTimeout?: Duration.Duration }
  ): Effect.Effect<Redacted.Redacted<string>, unknown>
  get(id: Redacted.Redacted<string>): Effect.Effect<Option.Option<unknown>, unknown>
  touch(id: Redacted.Redacted<string>): Effect.Effect<Option.Option<unknown>, unknown>
  revoke(id: Redacted.Redacted<string>): Effect.Effect<void, unknown>
  revokeUser(userId: string): Effect.Effect<number, unknown>
}

/** One backend of the store contract. */
export interface Backend {
  /** Runs `body` with a fresh store of this backend (its default ttl 1 hour). */
  readonly run: (
    body: (store: StoreUnderTest) => Effect.Effect<void, unknown>
  ) => Effect.Effect<void, unknown>
  /** The store's `SessionStore.validator`, over `store`. */
  readonly validatorOf: (store: StoreUnderTest) => Effect.Effect<{
    validate(id: Redacted.Redacted<string>): Effect.Effect<Option.Option<unknown>, unknown>
  }>
  /**
   * Time passing, counted in `unit`s: TestClock minutes where the store reads Effect's clock,
   * real 150 ms steps for Redis, whose own clock and key expiry end sessions.
   */
  readonly advance: (units: number) => Effect.Effect<void>
  readonly unit: number
  /** Everything the store holds, as text; undefined where it cannot be read from outside. */
  readonly dump?: (() => string) | undefined
  /** `false` skips the backend (Redis without a `redis-server`). */
  readonly live: boolean
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex")

let users = 0
/** A user of its own per test, so that `revokeUser` counts only that test's sessions. */
const someone = (fields: Record<string, unknown> = {}) => ({
  user_id: `u-${++users}`,
  email: "alice@example.com",
  user_type: "admin",
  team: "core",
  ...fields
})

export const storeContract = (line: string, backends: Record<string, Backend>): void => {
  const alice = someone()
  describe.each(Object.entries(backends))(`SessionStore contract (${line}): %s`, (_, backend) => {
    const test = (
      title: string,
      body: (sessions: StoreUnderTest) => Effect.Effect<void, unknown>
    ) => it.effect.skipIf(!backend.live)(title, () => backend.run(body))
    const span = (units: number) => Duration.millis(units * backend.unit)

    test("creates a session and gets it back with every field", (sessions) =>
      Effect.gen(function* () {
        const id = yield* sessions.create(alice)
        expect(yield* sessions.get(id)).toEqual(Option.some(alice))
        expect(yield* sessions.touch(id)).toEqual(Option.some(alice))
      }))

    test("issues distinct 256-bit base64url ids", (sessions) =>
      Effect.gen(function* () {
        const ids = yield* Effect.forEach(Array.from({ length: 20 }), () => sessions.create(alice))
        const raw = ids.map(Redacted.value)
        expect(new Set(raw).size).toBe(20)
        for (const id of raw) expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
      }))

    test("revokes a session; revoking an unknown id succeeds", (sessions) =>
      Effect.gen(function* () {
        const id = yield* sessions.create(alice)
        yield* sessions.revoke(id)
        expect(yield* sessions.get(id)).toEqual(Option.none())
        expect(yield* sessions.touch(id)).toEqual(Option.none())
        yield* sessions.revoke(Redacted.make("never-issued"))
        expect(() => sessions.create(alice, { ttl: -1 as never })).toThrow(RangeError)
        expect(() => sessions.create(alice, { idleTimeout: "forever" as never })).toThrow(
          /idleTimeout/
        )
      }))

    test("ends a session at its absolute ttl, the default or its own", (sessions) =>
      Effect.gen(function* () {
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

    test("ends a session unused for its idle timeout; touch moves the deadline, get does not", (sessions) =>
      Effect.gen(function* () {
        const id = yield* sessions.create(alice, { ttl: span(20), idleTimeout: span(3) })
        yield* backend.advance(2)
        expect(Option.isSome(yield* sessions.touch(id))).toBe(true)
        yield* backend.advance(2)
        expect(Option.isSome(yield* sessions.get(id))).toBe(true)
        yield* backend.advance(2)
        expect(yield* sessions.get(id)).toEqual(Option.none())
        expect(yield* sessions.touch(id)).toEqual(Option.none())
      }))

    test("touch never moves a session past its absolute end", (sessions) =>
      Effect.gen(function* () {
        const id = yield* sessions.create(alice, { ttl: span(8), idleTimeout: span(6) })
        yield* backend.advance(4)
        expect(Option.isSome(yield* sessions.touch(id))).toBe(true)
        yield* backend.advance(5)
        expect(yield* sessions.touch(id)).toEqual(Option.none())
      }))

    test("revokes every session of one user and no other", (sessions) =>
      Effect.gen(function* () {
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

    test("is a SessionValidator through SessionStore.validator, which touches what it validates", (sessions) =>
      Effect.gen(function* () {
        const id = yield* sessions.create(alice, { ttl: span(20), idleTimeout: span(3) })
        const validator = yield* backend.validatorOf(sessions)
        yield* backend.advance(2)
        expect(yield* validator.validate(id)).toEqual(Option.some(alice))
        yield* backend.advance(2)
        expect(yield* validator.validate(id)).toEqual(Option.some(alice))
        expect(yield* validator.validate(Redacted.make("unknown"))).toEqual(Option.none())
      }))

    test("does not store a session that is not SessionData", (sessions) =>
      Effect.gen(function* () {
        const failed = yield* Effect.flip(sessions.create({ user_id: 42 } as never))
        expect(failed).toMatchObject({ _tag: "SessionStoreError", operation: "create" })
      }))

    if (backend.dump !== undefined) {
      const dump = backend.dump
      test("keeps ids and user ids only as their SHA-256", (sessions) =>
        Effect.gen(function* () {
          const user = someone()
          const id = Redacted.value(yield* sessions.create(user))
          const stored = dump()
          expect(stored).toContain(sha256(id))
          expect(stored).toContain(sha256(user.user_id))
          expect(stored).not.toContain(id)
        }))
    }
  })
}

/** Every file of a store's directory, with its content. */
export const dumpDirectory = (directory: string): string =>
  readdirSync(directory)
    .map((file) => `${file}\n${readFileSync(join(directory, file), "utf8")}`)
    .join("\n")

/**
 * Every key of a Redis with what it holds (a hash's fields and values, a set's or a list's
 * members, a string), read in one script: one round trip however many keys earlier tests left.
 */
export const dumpRedis = (redisCommand: (...args: Array<string>) => string): string =>
  redisCommand("EVAL", DUMP_SCRIPT, "0")

const DUMP_SCRIPT = `local out = {}
for _, key in ipairs(redis.call("KEYS", "*")) do
  table.insert(out, key)
  local kind = redis.call("TYPE", key).ok
  local values = {}
  if kind == "hash" then values = redis.call("HGETALL", key)
  elseif kind == "set" then values = redis.call("SMEMBERS", key)
  elseif kind == "list" then values = redis.call("LRANGE", key, 0, -1)
  elseif kind == "zset" then values = redis.call("ZRANGE", key, 0, -1)
  elseif kind == "string" then values = { redis.call("GET", key) } end
  for _, value in ipairs(values) do table.insert(out, value) end
end
return out`

/**
 * Several server instances on one Redis (SPEC 6.5): a revoke on one is seen by every other at once,
 * and the sessions survive a restart of Redis (its append-only file is on).
 */
export const redisInstances = (
  line: string,
  options: {
    readonly live: boolean
    /** Runs `body` with two stores, each with its own connection to the same Redis. */
    readonly runTwo: (
      body: (first: StoreUnderTest, second: StoreUnderTest) => Effect.Effect<void, unknown>
    ) => Effect.Effect<void, unknown>
    /** Stops the Redis server and starts it again on the same port and directory. */
    readonly restart: () => Promise<void>
  }
): void => {
  describe(`SessionStore.layerRedis, several instances (${line})`, () => {
    it.effect.skipIf(!options.live)("a revoke on one instance is seen by the other at once", () =>
      options.runTwo((first, second) =>
        Effect.gen(function* () {
          const user = someone()
          const id = yield* first.create(user)
          expect(yield* second.get(id)).toEqual(Option.some(user))
          yield* first.revoke(id)
          expect(yield* second.get(id)).toEqual(Option.none())
          const again = yield* second.create(user)
          const other = yield* second.create(user)
          expect(yield* first.revokeUser(user.user_id)).toBe(2)
          expect(yield* second.touch(again)).toEqual(Option.none())
          expect(yield* second.touch(other)).toEqual(Option.none())
        })
      )
    )

    it.effect.skipIf(!options.live)(
      "sessions survive a restart of Redis; the client reconnects by itself",
      () =>
        options.runTwo((first) =>
          Effect.gen(function* () {
            const user = someone()
            const id = yield* first.create(user)
            yield* Effect.promise(options.restart)
            // while the connection comes back, commands fail at once; then the session is there
            let found: Option.Option<unknown> | undefined
            for (let attempt = 0; attempt < 100 && found === undefined; attempt++) {
              const exit = yield* Effect.exit(first.get(id))
              if (exit._tag === "Success") found = exit.value
              else yield* Effect.promise(() => new Promise((done) => setTimeout(done, 50)))
            }
            expect(found).toEqual(Option.some(user))
          })
        ),
      20_000
    )
  })
}
