import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { SessionData } from "../SessionData.js"
import type { SessionStoreOptions, SessionStoreService } from "../SessionStore.js"
import { SessionStoreError } from "../SessionStoreError.js"
import type { SessionValidatorService } from "../SessionValidator.js"
import { SessionValidatorUnavailable } from "../SessionValidatorUnavailable.js"
import { describe } from "./options.js"

/** How long a session lives, at most and without use; checked when the store is made. */
export interface Lifetimes {
  readonly ttl: Duration.Duration
  /** `undefined`: no idle expiry. */
  readonly idleTimeout: Duration.Duration | undefined
}

export const lifetimesFrom = (options: SessionStoreOptions | undefined): Lifetimes => {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`SessionStore: options must be an object, got ${describe(options)}`)
  }
  return {
    ttl: durationFrom("ttl", options?.ttl ?? "24 hours"),
    idleTimeout:
      options?.idleTimeout === undefined
        ? undefined
        : durationFrom("idleTimeout", options.idleTimeout)
  }
}

/** The lifetimes of one session: the store's, with what `create` was given instead. */
export const lifetimesOf = (
  defaults: Lifetimes,
  options: Parameters<SessionStoreService["create"]>[1]
): { readonly ttlMillis: number; readonly idleMillis: number } => {
  const ttl = options?.ttl === undefined ? defaults.ttl : durationFrom("ttl", options.ttl)
  const idle =
    options?.idleTimeout === undefined
      ? defaults.idleTimeout
      : durationFrom("idleTimeout", options.idleTimeout)
  return {
    ttlMillis: Duration.toMillis(ttl),
    idleMillis: idle === undefined ? 0 : Duration.toMillis(idle)
  }
}

/** A positive, finite duration, or a `RangeError` naming the option. */
const durationFrom = (name: string, input: Duration.DurationInput): Duration.Duration => {
  const duration = Duration.decodeUnknown(input)
  if (
    Option.isNone(duration) ||
    !Duration.isFinite(duration.value) ||
    Duration.toMillis(duration.value) <= 0
  ) {
    throw new RangeError(
      `SessionStore ${name} must be a positive, finite duration, got ${String(input)}`
    )
  }
  return duration.value
}

const toHex = (bytes: ArrayBuffer) =>
  Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("")

/** The SHA-256 of a string, in hex: what the stores keep instead of ids (and user ids). */
export const digestOf = (value: string) =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))).pipe(
    Effect.map(toHex)
  )

/** The user whose sessions `revokeUser` ends: a non-empty string, or an error naming it. */
export const checkUserId = (userId: string): string => {
  if (typeof userId !== "string" || userId.length === 0) {
    throw new TypeError(
      `SessionStore.revokeUser: userId must be a non-empty string, got ${describe(userId)}`
    )
  }
  return userId
}

/** 32 random bytes as base64url: 256 bits. */
export const freshId = Effect.sync(() => {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  const base64 = btoa(String.fromCharCode(...bytes))
  return Redacted.make(base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""))
})

export const SessionJson = Schema.parseJson(SessionData)

/** A store's failure as its `SessionStoreError`, without the id (the cause never holds it). */
export const failingAs =
  (operation: SessionStoreError["operation"]) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, SessionStoreError, R> =>
    Effect.mapError(self, (cause) => new SessionStoreError({ operation, cause }))

/**
 * An entry of the `KeyValueStore` store. `expiresAt` is the absolute end; `idleUntil` moves on with
 * every `touch` when the session has an idle timeout (`idleMillis` > 0).
 */
const Entry = Schema.parseJson(
  Schema.Struct({
    session: SessionData,
    expiresAt: Schema.Number,
    idleMillis: Schema.optionalWith(Schema.Number, { default: () => 0 }),
    idleUntil: Schema.optional(Schema.Number)
  })
)
type Entry = typeof Entry.Type
const encodeEntry = Schema.encode(Entry)
const decodeEntry = Schema.decodeUnknownOption(Entry)

/** The session keys of one user, so that all of them can be revoked. */
const Index = Schema.parseJson(Schema.Array(Schema.String))
const encodeIndex = Schema.encode(Index)
const decodeIndex = Schema.decodeUnknownOption(Index)

const deadlineOf = (entry: Entry) =>
  entry.idleUntil === undefined ? entry.expiresAt : Math.min(entry.expiresAt, entry.idleUntil)

/** Removing what is already gone is not a failure. */
const removeKey = (kv: KeyValueStore.KeyValueStore, key: string) =>
  kv.remove(key).pipe(
    Effect.catchIf(
      (error) => error._tag === "SystemError" && error.reason === "NotFound",
      () => Effect.void
    )
  )

/**
 * The store over a `KeyValueStore`: one entry per session under `session-<sha256(id)>`, one index
 * per user under `user-<sha256(user_id)>`. Expiry is checked on read. The index is kept under a
 * lock, so it is exact within one process; several processes must not share one directory.
 */
export const make = (defaults: Lifetimes) =>
  Effect.gen(function* () {
    const kv = yield* KeyValueStore.KeyValueStore
    const lock = yield* Effect.makeSemaphore(1)
    const sessionKey = (id: Redacted.Redacted<string>) =>
      Effect.map(digestOf(Redacted.value(id)), (digest) => `session-${digest}`)
    const userKey = (userId: string) => Effect.map(digestOf(userId), (digest) => `user-${digest}`)
    const readIndex = (key: string) =>
      Effect.map(kv.get(key), (found) =>
        Option.getOrElse(Option.flatMap(found, decodeIndex), (): ReadonlyArray<string> => [])
      )

    /** The live entry under `key`; an expired one is removed on the way. */
    const live = (key: string) =>
      Effect.gen(function* () {
        const entry = Option.flatMap(yield* kv.get(key), decodeEntry)
        if (Option.isNone(entry)) return entry
        if (deadlineOf(entry.value) <= (yield* Clock.currentTimeMillis)) {
          yield* removeKey(kv, key)
          return Option.none()
        }
        return entry
      })

    const create: SessionStoreService["create"] = (session, options) => {
      const { idleMillis, ttlMillis } = lifetimesOf(defaults, options)
      return Effect.gen(function* () {
        const id = yield* freshId
        const key = yield* sessionKey(id)
        const now = yield* Clock.currentTimeMillis
        const entry: Entry = {
          session: session as SessionData,
          expiresAt: now + ttlMillis,
          idleMillis,
          ...(idleMillis > 0 ? { idleUntil: now + idleMillis } : {})
        }
        const value = yield* encodeEntry(entry)
        const indexKey = yield* userKey(session.user_id)
        yield* lock.withPermits(1)(
          Effect.gen(function* () {
            yield* kv.set(key, value)
            // keys whose entries are gone (expired, revoked) leave the index here
            const kept = yield* Effect.filter(yield* readIndex(indexKey), kv.has)
            yield* kv.set(indexKey, yield* encodeIndex([...kept, key]))
          })
        )
        return id
      }).pipe(failingAs("create"))
    }

    const get: SessionStoreService["get"] = (id) =>
      Effect.flatMap(sessionKey(id), live).pipe(
        Effect.map(Option.map((entry) => entry.session)),
        failingAs("get")
      )

    const touch: SessionStoreService["touch"] = (id) =>
      Effect.gen(function* () {
        const key = yield* sessionKey(id)
        const entry = yield* live(key)
        if (Option.isNone(entry) || entry.value.idleMillis <= 0) {
          return Option.map(entry, (found) => found.session)
        }
        const idleUntil = (yield* Clock.currentTimeMillis) + entry.value.idleMillis
        yield* kv.set(key, yield* encodeEntry({ ...entry.value, idleUntil }))
        return Option.some(entry.value.session)
      }).pipe(failingAs("touch"))

    const revoke: SessionStoreService["revoke"] = (id) =>
      Effect.flatMap(sessionKey(id), (key) => removeKey(kv, key)).pipe(failingAs("revoke"))

    const revokeUser: SessionStoreService["revokeUser"] = (userId) =>
      Effect.flatMap(userKey(checkUserId(userId)), (indexKey) =>
        lock.withPermits(1)(
          Effect.gen(function* () {
            const keys = yield* readIndex(indexKey)
            let revoked = 0
            for (const key of keys) {
              if (Option.isSome(yield* live(key))) revoked++
              yield* removeKey(kv, key)
            }
            yield* removeKey(kv, indexKey)
            return revoked
          })
        )
      ).pipe(failingAs("revokeUser"))

    return { create, get, touch, revoke, revokeUser } satisfies SessionStoreService
  })

/** Live ids are valid (and used: their idle deadline moves on), a store failure is unavailable. */
export const validatorOf = (sessions: SessionStoreService): SessionValidatorService => ({
  validate: (id) =>
    sessions.touch(id).pipe(
      Effect.mapError(
        (cause) =>
          new SessionValidatorUnavailable({
            reason: "Failure",
            description: cause.message,
            cause
          })
      )
    )
})
