/**
 * The session store contract (SPEC 6.5), on both Effect lines: each line gives its layers (memory,
 * file system, Redis) and how time passes for them, and the suite runs the same cases over each.
 * The cases use only Effect API both lines share.
 */
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import fc from "fast-check"

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
  rotate(
    id: Redacted.Redacted<string>
  ): Effect.Effect<Option.Option<Redacted.Redacted<string>>, unknown>
  handleOf(id: Redacted.Redacted<string>): Effect.Effect<Option.Option<string>, unknown>
  list(userId: string): Effect.Effect<ReadonlyArray<SessionInfoUnderTest>, unknown>
  revokeHandle(userId: string, handle: string): Effect.Effect<boolean, unknown>
  revokeOthers(id: Redacted.Redacted<string>): Effect.Effect<number, unknown>
}

/** A session as `list` shows it. */
export interface SessionInfoUnderTest {
  readonly handle: string
  readonly createdAt: Date
  readonly lastSeenAt: Date
  readonly expiresAt: Date
  readonly data: unknown
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
   * real seconds for Redis, whose own clock and key expiry end sessions.
   */
  readonly advance: (units: number) => Effect.Effect<void>
  readonly unit: number
  /** Everything the store holds, as text; undefined where it cannot be read from outside. */
  readonly dump?: (() => string) | undefined
  /** `false` skips the backend (Redis without a `redis-server`). */
  readonly live: boolean
  /**
   * Runs the cases at once: on real time (Redis) their waits would otherwise add up. Each case
   * works on sessions of its own.
   */
  readonly concurrent?: boolean
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

/** Wipes a redacted value: Effect 3's `Redacted.unsafeWipe`, Effect 4's `Redacted.wipeUnsafe`. */
const wipe = (value: Redacted.Redacted<string>): boolean => {
  const line = Redacted as unknown as Record<string, ((value: unknown) => boolean) | undefined>
  const wipeOf = line.unsafeWipe ?? line.wipeUnsafe
  if (wipeOf === undefined) throw new Error("this Effect line has no way to wipe a Redacted")
  return wipeOf(value)
}

export const storeContract = (line: string, backends: Record<string, Backend>): void => {
  const alice = someone()
  describe.each(Object.entries(backends))(
    `SessionStore contract (${line}): %s`,
    (name, backend) => {
      const test = (
        title: string,
        body: (sessions: StoreUnderTest) => Effect.Effect<void, unknown>
      ) =>
        it.effect.skipIf(!backend.live)(title, () => backend.run(body), {
          concurrent: backend.concurrent === true
        })
      const span = (units: number) => Duration.millis(units * backend.unit)

      test("creates a session and gets it back with every field", (sessions) =>
        Effect.gen(function* () {
          const id = yield* sessions.create(alice)
          expect(yield* sessions.get(id)).toEqual(Option.some(alice))
          expect(yield* sessions.touch(id)).toEqual(Option.some(alice))
        }))

      test("answers frozen sessions, which no caller can change for the next", (sessions) =>
        Effect.gen(function* () {
          const id = yield* sessions.create({ ...alice, permissions: ["read"] })
          for (const read of [sessions.get(id), sessions.touch(id), sessions.get(id)]) {
            const session = Option.getOrThrow(yield* read) as { permissions: Array<string> }
            expect(Object.isFrozen(session) && Object.isFrozen(session.permissions)).toBe(true)
            expect(() => session.permissions.push("admin")).toThrow(TypeError)
            expect(session.permissions).toEqual(["read"])
          }
        }))

      test("issues distinct 256-bit base64url ids", (sessions) =>
        Effect.gen(function* () {
          const ids = yield* Effect.forEach(Array.from({ length: 20 }), () =>
            sessions.create(alice)
          )
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

      test("an id that is not a Redacted string, or was wiped, is a defect that says so", (sessions) =>
        Effect.gen(function* () {
          const wiped = yield* sessions.create(alice)
          wipe(wiped)
          const operations = {
            get: sessions.get,
            touch: sessions.touch,
            revoke: sessions.revoke,
            rotate: sessions.rotate,
            handleOf: sessions.handleOf,
            revokeOthers: sessions.revokeOthers
          }
          for (const [name, operation] of Object.entries(operations)) {
            for (const [id, text] of [
              ["a raw id", /must be a Redacted string \(Redacted\.make\(id\)\), not a string/],
              [wiped, /not a string, or was wiped/],
              [Redacted.make(42), /not a string, or was wiped/]
            ] as const) {
              const exit = yield* Effect.exit(
                Effect.suspend(() => (operation as (id: unknown) => Effect.Effect<unknown>)(id))
              )
              const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
              expect(defect, name).toBeInstanceOf(TypeError)
              expect((defect as TypeError).message, name).toMatch(text)
            }
          }
        }))

      test("ends a session at its absolute ttl, the default or its own", (sessions) =>
        Effect.gen(function* () {
          const long = yield* sessions.create(alice, { ttl: span(4) })
          const short = yield* sessions.create(alice, { ttl: span(2) })
          yield* backend.advance(1)
          expect(Option.isSome(yield* sessions.get(short))).toBe(true)
          yield* backend.advance(2)
          expect(yield* sessions.get(short)).toEqual(Option.none())
          expect(Option.isSome(yield* sessions.touch(long))).toBe(true)
          yield* backend.advance(2)
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
          const id = yield* sessions.create(alice, { ttl: span(4), idleTimeout: span(4) })
          yield* backend.advance(2)
          // the idle deadline moves to 6 units; the absolute end stays at 4
          expect(Option.isSome(yield* sessions.touch(id))).toBe(true)
          yield* backend.advance(3)
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

      test("rotate: a new id for the same session; the old one ends at once", (sessions) =>
        Effect.gen(function* () {
          const user = someone()
          const id = yield* sessions.create(user, { ttl: span(4), idleTimeout: span(4) })
          const [before] = yield* sessions.list(user.user_id)
          const rotated = Option.getOrThrow(yield* sessions.rotate(id))
          expect(Redacted.value(rotated)).toMatch(/^[A-Za-z0-9_-]{43}$/)
          expect(Redacted.value(rotated)).not.toBe(Redacted.value(id))
          expect(yield* sessions.get(id)).toEqual(Option.none())
          expect(yield* sessions.touch(id)).toEqual(Option.none())
          expect(yield* sessions.get(rotated)).toEqual(Option.some(user))
          // the same session: its handle, creation and lifetimes kept
          const after = yield* sessions.list(user.user_id)
          expect(after).toHaveLength(1)
          expect(after[0]?.handle).toBe(before?.handle)
          expect(after[0]?.createdAt).toEqual(before?.createdAt)
          expect(after[0]?.expiresAt).toEqual(before?.expiresAt)
          // an id that is not live (rotated away, revoked, never issued) rotates to nothing
          expect(yield* sessions.rotate(id)).toEqual(Option.none())
          expect(yield* sessions.rotate(Redacted.make("never-issued"))).toEqual(Option.none())
          yield* backend.advance(2)
          expect(Option.isSome(yield* sessions.touch(rotated))).toBe(true)
          yield* backend.advance(3)
          // the absolute end of the session it was: 4 units after its creation, though the
          // touch moved its idle deadline to 6
          expect(yield* sessions.get(rotated)).toEqual(Option.none())
          expect(yield* sessions.rotate(rotated)).toEqual(Option.none())
        }))

      test("rotate keeps the idle deadline: an unused session still ends on time", (sessions) =>
        Effect.gen(function* () {
          const id = yield* sessions.create(alice, { ttl: span(20), idleTimeout: span(3) })
          yield* backend.advance(2)
          const rotated = Option.getOrThrow(yield* sessions.rotate(id))
          yield* backend.advance(2)
          expect(yield* sessions.get(rotated)).toEqual(Option.none())
        }))

      test("list: a user's live sessions, with handle, times and data, oldest first", (sessions) =>
        Effect.gen(function* () {
          const user = someone({ name: "Dana" })
          const other = someone()
          const first = yield* sessions.create(user, { ttl: span(10), idleTimeout: span(4) })
          yield* backend.advance(1)
          const second = yield* sessions.create(user, { ttl: span(3) })
          yield* sessions.create(other)
          const listed = yield* sessions.list(user.user_id)
          expect(listed.map((info) => info.data)).toEqual([user, user])
          const [one, two] = listed
          if (one === undefined || two === undefined) throw new Error("two sessions")
          expect(one.createdAt.getTime()).toBeLessThan(two.createdAt.getTime())
          expect(one.lastSeenAt).toEqual(one.createdAt)
          // the idle deadline is the earlier end of the first, the absolute end of the second
          expect(one.expiresAt.getTime() - one.createdAt.getTime()).toBe(4 * backend.unit)
          expect(two.expiresAt.getTime() - two.createdAt.getTime()).toBe(3 * backend.unit)
          expect(one.handle).not.toBe(two.handle)
          for (const info of listed) {
            expect(info.handle).toMatch(/^[A-Za-z0-9_-]{22}$/)
            for (const id of [first, second]) {
              expect(info.handle).not.toContain(Redacted.value(id))
              expect(sha256(Redacted.value(id))).not.toContain(info.handle)
            }
          }
          yield* backend.advance(1)
          yield* sessions.touch(first)
          const touched = (yield* sessions.list(user.user_id))[0]
          const seen = (touched?.lastSeenAt.getTime() ?? 0) - one.createdAt.getTime()
          // exact on Effect's TestClock; Redis's own clock runs on while the test waits
          expect(seen).toBeGreaterThanOrEqual(2 * backend.unit)
          expect(seen).toBeLessThan(
            backend.unit === 60_000 ? 2 * backend.unit + 1 : 3 * backend.unit
          )
          expect(touched?.expiresAt.getTime()).toBe(
            (touched?.lastSeenAt.getTime() ?? 0) + 4 * backend.unit
          )
          yield* backend.advance(2)
          // the second has ended: it is not listed
          expect((yield* sessions.list(user.user_id)).map((info) => info.handle)).toEqual([
            one.handle
          ])
          expect(yield* sessions.list(someone().user_id)).toEqual([])
          expect(() => sessions.list("")).toThrow(TypeError)
        }))

      test("list keeps the order of creation, even within one millisecond, and keeps it through rotate", (sessions) =>
        Effect.gen(function* () {
          const user = someone()
          // one after another, without waiting: many of them share a millisecond
          const ids: Array<Redacted.Redacted<string>> = []
          for (let at = 0; at < 24; at++) ids.push(yield* sessions.create(user))
          const handles: Array<string> = []
          for (const id of ids) handles.push(Option.getOrThrow(yield* sessions.handleOf(id)))
          expect((yield* sessions.list(user.user_id)).map((info) => info.handle)).toEqual(handles)
          yield* sessions.rotate(ids[0]!)
          yield* sessions.rotate(ids[12]!)
          expect((yield* sessions.list(user.user_id)).map((info) => info.handle)).toEqual(handles)
        }))

      test("touch writes a use down once it is due: a twentieth of idleTimeout old, at most a minute", (sessions) =>
        Effect.gen(function* () {
          const user = someone()
          // a twentieth of 20 units is one unit on every backend (a TestClock minute, Redis's 2 s)
          const id = yield* sessions.create(user, { ttl: span(100), idleTimeout: span(20) })
          const only = Effect.map(sessions.list(user.user_id), (listed) => {
            expect(listed).toHaveLength(1)
            return listed[0] as SessionInfoUnderTest
          })
          const created = yield* only
          yield* backend.advance(0.25)
          expect(yield* sessions.touch(id)).toEqual(Option.some(user))
          // not due: nothing written, the idle deadline stays where the creation put it
          const early = yield* only
          expect(early.lastSeenAt).toEqual(created.lastSeenAt)
          expect(early.expiresAt).toEqual(created.expiresAt)
          yield* backend.advance(1)
          expect(yield* sessions.touch(id)).toEqual(Option.some(user))
          const due = yield* only
          const seen = due.lastSeenAt.getTime() - created.createdAt.getTime()
          // exact on Effect's TestClock; Redis's own clock runs on while the test waits
          expect(seen).toBeGreaterThanOrEqual(1.25 * backend.unit)
          expect(seen).toBeLessThan(
            backend.unit === 60_000 ? 1.25 * backend.unit + 1 : 2.25 * backend.unit
          )
          expect(due.expiresAt.getTime()).toBe(due.lastSeenAt.getTime() + 20 * backend.unit)

          // without an idle timeout, a use is written down once a minute
          const other = someone()
          const plain = yield* sessions.create(other)
          const first = (yield* sessions.list(other.user_id))[0]
          expect(yield* sessions.touch(plain)).toEqual(Option.some(other))
          expect((yield* sessions.list(other.user_id))[0]?.lastSeenAt).toEqual(first?.lastSeenAt)
          if (backend.unit === 60_000) {
            yield* backend.advance(59 / 60)
            yield* sessions.touch(plain)
            expect((yield* sessions.list(other.user_id))[0]?.lastSeenAt).toEqual(first?.lastSeenAt)
            yield* backend.advance(1 / 60)
            yield* sessions.touch(plain)
            expect((yield* sessions.list(other.user_id))[0]?.lastSeenAt.getTime()).toBe(
              (first?.createdAt.getTime() ?? 0) + 60_000
            )
          }
        }))

      test("handleOf: a live id's handle as list shows it, kept through rotate; None once it ends", (sessions) =>
        Effect.gen(function* () {
          const user = someone()
          const first = yield* sessions.create(user)
          const second = yield* sessions.create(user)
          yield* backend.advance(1)
          const handles = [
            Option.getOrThrow(yield* sessions.handleOf(first)),
            Option.getOrThrow(yield* sessions.handleOf(second))
          ]
          const listed = yield* sessions.list(user.user_id)
          expect(listed.map((info) => info.handle)).toEqual(handles)
          // not a use: the last use is still the creation
          for (const info of listed) expect(info.lastSeenAt).toEqual(info.createdAt)
          for (const [handle, id] of [
            [handles[0], first],
            [handles[1], second]
          ] as const) {
            expect(handle).toMatch(/^[A-Za-z0-9_-]{22}$/)
            expect(Redacted.value(id)).not.toContain(handle)
            expect(sha256(Redacted.value(id))).not.toContain(handle)
          }
          const rotated = Option.getOrThrow(yield* sessions.rotate(first))
          expect(yield* sessions.handleOf(rotated)).toEqual(Option.some(handles[0]))
          expect(yield* sessions.handleOf(first)).toEqual(Option.none())
          yield* sessions.revoke(second)
          expect(yield* sessions.handleOf(second)).toEqual(Option.none())
          expect(yield* sessions.handleOf(Redacted.make("never-issued"))).toEqual(Option.none())
          const short = yield* sessions.create(user, { ttl: span(2) })
          expect(Option.isSome(yield* sessions.handleOf(short))).toBe(true)
          yield* backend.advance(3)
          expect(yield* sessions.handleOf(short)).toEqual(Option.none())
        }))

      test("revokeHandle ends that user's session only, and says whether it did", (sessions) =>
        Effect.gen(function* () {
          const user = someone()
          const other = someone()
          const mine = yield* sessions.create(user)
          const kept = yield* sessions.create(user)
          const theirs = yield* sessions.create(other)
          const [theirInfo] = yield* sessions.list(other.user_id)
          const handles = (yield* sessions.list(user.user_id)).map((info) => info.handle)
          expect(handles).toHaveLength(2)
          const target = { handle: handles[0] }
          // another user's handle ends nothing
          expect(yield* sessions.revokeHandle(user.user_id, theirInfo?.handle ?? "")).toBe(false)
          expect(Option.isSome(yield* sessions.get(theirs))).toBe(true)
          for (const junk of ["", "x", "__proto__", "constructor", Redacted.value(mine)]) {
            expect(yield* sessions.revokeHandle(user.user_id, junk)).toBe(false)
          }
          expect(yield* sessions.revokeHandle(user.user_id, target?.handle ?? "")).toBe(true)
          expect(yield* sessions.revokeHandle(user.user_id, target?.handle ?? "")).toBe(false)
          const left = yield* sessions.list(user.user_id)
          expect(left).toHaveLength(1)
          const live = [yield* sessions.get(mine), yield* sessions.get(kept)].filter(Option.isSome)
          expect(live).toHaveLength(1)
          expect(() => sessions.revokeHandle("", "x")).toThrow(TypeError)
        }))

      test("revokeOthers ends the user's other sessions and keeps this one", (sessions) =>
        Effect.gen(function* () {
          const user = someone()
          const other = someone()
          const here = yield* sessions.create(user)
          const away = yield* sessions.create(user)
          const gone = yield* sessions.create(user)
          const theirs = yield* sessions.create(other)
          yield* sessions.revoke(gone)
          expect(yield* sessions.revokeOthers(here)).toBe(1)
          expect(Option.isSome(yield* sessions.get(here))).toBe(true)
          expect(yield* sessions.get(away)).toEqual(Option.none())
          expect(Option.isSome(yield* sessions.get(theirs))).toBe(true)
          expect(yield* sessions.list(user.user_id)).toHaveLength(1)
          expect(yield* sessions.revokeOthers(here)).toBe(0)
          expect(yield* sessions.revokeOthers(away)).toBe(0)
          expect(yield* sessions.revokeOthers(Redacted.make("never-issued"))).toBe(0)
          // a session created afterwards is listed beside it
          yield* sessions.create(user)
          expect(yield* sessions.list(user.user_id)).toHaveLength(2)
        }))

      test("50 uses of the old id during a rotate: none succeeds once rotate has returned", (sessions) =>
        Effect.gen(function* () {
          const user = someone()
          const id = yield* sessions.create(user)
          const newId = yield* usesDuringRotate(sessions.rotate(id), sessions.touch(id))
          // no use brought the old id back
          expect(yield* sessions.get(id)).toEqual(Option.none())
          const after = yield* Effect.all(
            Array.from({ length: 50 }, () => sessions.touch(id)),
            { concurrency: "unbounded" }
          )
          expect(after.filter(Option.isSome)).toEqual([])
          expect(yield* sessions.get(newId)).toEqual(Option.some(user))
          expect(yield* sessions.list(user.user_id)).toHaveLength(1)
        }))

      test("property: rotate never leaves two live ids for a session; handles never show an id or its hash", (sessions) =>
        Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(operations, (steps) =>
              Effect.runPromise(checkOperations(sessions, steps))
            ),
            // fewer runs where each step is a file or a round trip to Redis
            { numRuns: name === "memory" ? 50 : 10 }
          )
        ))

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
    }
  )
}

/** `n` turns of the event loop (I/O included): spreads uses out around a rotate, on any clock. */
const turns = (n: number) =>
  Effect.promise(async () => {
    for (let turn = 0; turn < n; turn++) await new Promise((done) => setImmediate(done))
  })

/**
 * 50 uses of `id` through `use`, the i-th after i turns of the event loop, beside one `rotate`: a use
 * that starts once the rotate has returned finds nothing. Answers the new id.
 */
export const usesDuringRotate = (
  rotate: Effect.Effect<Option.Option<Redacted.Redacted<string>>, unknown>,
  use: Effect.Effect<Option.Option<unknown>, unknown>
) =>
  Effect.gen(function* () {
    let order = 0
    let rotatedAt = Number.POSITIVE_INFINITY
    const uses = Array.from({ length: 50 }, (_, i) =>
      Effect.flatMap(turns(i), () => {
        const startedAt = ++order
        return Effect.map(use, (found) => ({ found, startedAt }))
      })
    )
    const rotating = Effect.tap(rotate, () => Effect.sync(() => (rotatedAt = ++order)))
    const [rotated, seen] = yield* Effect.all(
      [rotating, Effect.all(uses, { concurrency: "unbounded" })],
      { concurrency: "unbounded" }
    )
    for (const { found, startedAt } of seen) {
      if (startedAt > rotatedAt) expect(found).toEqual(Option.none())
    }
    return Option.getOrThrow(rotated)
  })

/** What a property run does to one user's sessions: create, or use an id issued before. */
type Step =
  | { readonly op: "create" }
  | { readonly op: "rotate" | "touch" | "revoke" | "revokeOthers"; readonly pick: number }

const operations: fc.Arbitrary<ReadonlyArray<Step>> = fc.array(
  fc.oneof(
    fc.constant<Step>({ op: "create" }),
    fc.record({
      op: fc.constantFrom("rotate", "touch", "revoke", "revokeOthers"),
      pick: fc.nat(20)
    }) as fc.Arbitrary<Step>
  ),
  { minLength: 1, maxLength: 14 }
)

/**
 * Runs `steps` on a fresh user and checks the store against a model: every id ever issued is live
 * exactly when it is the current id of a session not ended; `list` shows one entry per such
 * session, with handles that are neither an id nor a hash, nor part of one.
 */
const checkOperations = (sessions: StoreUnderTest, steps: ReadonlyArray<Step>) =>
  Effect.gen(function* () {
    const user = someone()
    /** Each session's current id, or undefined once it ended. */
    const current: Array<Redacted.Redacted<string> | undefined> = []
    const issued: Array<Redacted.Redacted<string>> = []
    for (const step of steps) {
      if (step.op === "create") {
        const id = yield* sessions.create(user)
        current.push(id)
        issued.push(id)
        continue
      }
      if (issued.length === 0) continue
      const id = issued[step.pick % issued.length]!
      const session = current.indexOf(id)
      switch (step.op) {
        case "rotate": {
          const rotated = yield* sessions.rotate(id)
          expect(Option.isSome(rotated)).toBe(session >= 0)
          if (Option.isSome(rotated)) {
            current[session] = rotated.value
            issued.push(rotated.value)
          }
          break
        }
        case "touch":
          expect(Option.isSome(yield* sessions.touch(id))).toBe(session >= 0)
          break
        case "revoke":
          yield* sessions.revoke(id)
          if (session >= 0) current[session] = undefined
          break
        case "revokeOthers": {
          const live = current.filter((found) => found !== undefined).length
          expect(yield* sessions.revokeOthers(id)).toBe(session >= 0 ? live - 1 : 0)
          for (let at = 0; session >= 0 && at < current.length; at++) {
            if (at !== session) current[at] = undefined
          }
          break
        }
      }
    }
    for (const id of issued) {
      const live = current.includes(id)
      expect(Option.isSome(yield* sessions.get(id))).toBe(live)
    }
    const listed = yield* sessions.list(user.user_id)
    expect(listed).toHaveLength(current.filter((id) => id !== undefined).length)
    expect(new Set(listed.map((info) => info.handle)).size).toBe(listed.length)
    for (const info of listed) {
      for (const id of issued) {
        const raw = Redacted.value(id)
        const hash = sha256(raw)
        expect(raw).not.toContain(info.handle)
        expect(info.handle).not.toContain(raw)
        expect(hash).not.toContain(info.handle)
        expect(info.handle).not.toContain(hash)
      }
    }
    yield* sessions.revokeUser(user.user_id)
  })

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
      "a rotate on one instance is seen by the other at once; uses of the old id there fail",
      () =>
        options.runTwo((first, second) =>
          Effect.gen(function* () {
            const user = someone()
            const id = yield* first.create(user)
            const [before] = yield* second.list(user.user_id)
            const newId = yield* usesDuringRotate(first.rotate(id), second.touch(id))
            expect(yield* second.get(id)).toEqual(Option.none())
            expect(yield* second.touch(newId)).toEqual(Option.some(user))
            const after = yield* second.list(user.user_id)
            expect(after.map((info) => info.handle)).toEqual([before?.handle])
            // and the other way: a device list on one, a revoke by handle on the other
            const other = yield* second.create(user)
            const handle = (yield* first.list(user.user_id)).find(
              (info) => info.handle !== before?.handle
            )?.handle
            expect(yield* first.revokeHandle(user.user_id, handle ?? "")).toBe(true)
            expect(yield* second.get(other)).toEqual(Option.none())
            yield* second.create(user)
            expect(yield* first.revokeOthers(newId)).toBe(1)
            expect(yield* second.list(user.user_id)).toHaveLength(1)
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
