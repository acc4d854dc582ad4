import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SystemError } from "@effect/platform/Error"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, TestClock } from "effect"
import { SessionValidator } from "../../src/Auth/index.js"
import { SessionStore, SessionStoreError } from "../../src/Auth/SessionStore.js"

const alice = { user_id: "u-alice", email: "alice@example.com", user_type: "admin", team: "core" }

const directory = mkdtempSync(join(tmpdir(), "svc-sessions-"))
const layers = {
  memory: SessionStore.layerMemory({ ttl: "1 hour" }),
  fileSystem: SessionStore.layerFileSystem(directory, { ttl: "1 hour" }).pipe(
    Layer.provide(NodeContext.layer)
  )
} as const

describe.each(Object.entries(layers))("SessionStore.%s", (_name, layer) => {
  it.effect("creates a session and gets it back with every field", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const id = yield* sessions.create(alice)
      expect(yield* sessions.get(id)).toEqual(Option.some(alice))
    }).pipe(Effect.provide(layer))
  )

  it.effect("issues distinct 256-bit base64url ids", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const ids = yield* Effect.forEach(Array.from({ length: 20 }), () => sessions.create(alice))
      const raw = ids.map(Redacted.value)
      expect(new Set(raw).size).toBe(20)
      for (const id of raw) expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    }).pipe(Effect.provide(layer))
  )

  it.effect("revokes a session; revoking an unknown id succeeds", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const id = yield* sessions.create(alice)
      yield* sessions.revoke(id)
      expect(yield* sessions.get(id)).toEqual(Option.none())
      yield* sessions.revoke(Redacted.make("never-issued"))
      expect(() => sessions.create(alice, { ttl: -1 })).toThrow(RangeError)
    }).pipe(Effect.provide(layer))
  )

  it.effect("expires a session after its ttl, the default or a per-session one", () =>
    Effect.gen(function* () {
      const sessions = yield* SessionStore
      const long = yield* sessions.create(alice)
      const short = yield* sessions.create(alice, { ttl: "1 minute" })
      yield* TestClock.adjust("59 seconds")
      expect(Option.isSome(yield* sessions.get(short))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* sessions.get(short)).toEqual(Option.none())
      expect(Option.isSome(yield* sessions.get(long))).toBe(true)
      yield* TestClock.adjust("59 minutes")
      expect(yield* sessions.get(long)).toEqual(Option.none())
    }).pipe(Effect.provide(layer))
  )

  it.effect("is a SessionValidator through SessionStore.validator", () =>
    Effect.gen(function* () {
      const id = yield* Effect.flatMap(SessionStore, (sessions) => sessions.create(alice))
      const validator = yield* SessionValidator
      expect(yield* validator.validate(id)).toEqual(Option.some(alice))
      expect(yield* validator.validate(Redacted.make("unknown"))).toEqual(Option.none())
    }).pipe(Effect.provide(Layer.provideMerge(SessionStore.validator, layer)))
  )
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
      const files = readdirSync(dir)
      expect(files).toHaveLength(1)
      const secret = Redacted.value(id)
      expect(files[0]).not.toContain(secret)
      expect(readFileSync(join(dir, files[0]!), "utf8")).not.toContain(secret)
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
