import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { SessionData } from "../SessionData.js"
import type { SessionStoreService } from "../SessionStore.js"
import { SessionStoreError } from "../SessionStoreError.js"
import type { SessionValidatorService } from "../SessionValidator.js"
import { SessionValidatorUnavailable } from "../SessionValidatorUnavailable.js"

const Entry = Schema.parseJson(Schema.Struct({ session: SessionData, expiresAt: Schema.Number }))
const encodeEntry = Schema.encode(Entry)
const decodeEntry = Schema.decodeUnknownOption(Entry)

const toHex = (bytes: ArrayBuffer) =>
  Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("")

/** The storage key of an id: its SHA-256, so that stored keys are not usable ids. */
const keyOf = (id: Redacted.Redacted<string>) =>
  Effect.promise(() =>
    crypto.subtle.digest("SHA-256", new TextEncoder().encode(Redacted.value(id)))
  ).pipe(Effect.map((digest) => `session-${toHex(digest)}`))

/** 32 random bytes as base64url: 256 bits. */
const freshId = Effect.sync(() => {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  const base64 = btoa(String.fromCharCode(...bytes))
  return Redacted.make(base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""))
})

/** A positive, finite duration, or a `RangeError` naming the `ttl`. */
export const ttlFrom = (input: Duration.DurationInput): Duration.Duration => {
  const ttl = Duration.decodeUnknown(input)
  if (Option.isNone(ttl) || !Duration.isFinite(ttl.value) || Duration.toMillis(ttl.value) <= 0) {
    throw new RangeError(
      `SessionStore ttl must be a positive, finite duration, got ${String(input)}`
    )
  }
  return ttl.value
}

/** Removing what is already gone is not a failure. */
const removeKey = (kv: KeyValueStore.KeyValueStore, key: string) =>
  kv.remove(key).pipe(
    Effect.catchIf(
      (error) => error._tag === "SystemError" && error.reason === "NotFound",
      () => Effect.void
    )
  )

export const make = (defaultTtl: Duration.Duration) =>
  Effect.gen(function* () {
    const kv = yield* KeyValueStore.KeyValueStore

    const create: SessionStoreService["create"] = (session, options) => {
      const ttl = options?.ttl === undefined ? defaultTtl : ttlFrom(options.ttl)
      return Effect.gen(function* () {
        const id = yield* freshId
        const expiresAt = (yield* Clock.currentTimeMillis) + Duration.toMillis(ttl)
        const value = yield* encodeEntry({ session: session as SessionData, expiresAt })
        yield* kv.set(yield* keyOf(id), value)
        return id
      }).pipe(Effect.mapError((cause) => new SessionStoreError({ operation: "create", cause })))
    }

    const get: SessionStoreService["get"] = (id) =>
      Effect.gen(function* () {
        const key = yield* keyOf(id)
        const entry = Option.flatMap(yield* kv.get(key), decodeEntry)
        if (Option.isNone(entry)) return Option.none()
        if (entry.value.expiresAt <= (yield* Clock.currentTimeMillis)) {
          yield* removeKey(kv, key)
          return Option.none()
        }
        return Option.some(entry.value.session)
      }).pipe(Effect.mapError((cause) => new SessionStoreError({ operation: "get", cause })))

    const revoke: SessionStoreService["revoke"] = (id) =>
      keyOf(id).pipe(
        Effect.flatMap((key) => removeKey(kv, key)),
        Effect.mapError((cause) => new SessionStoreError({ operation: "revoke", cause }))
      )

    return { create, get, revoke } satisfies SessionStoreService
  })

export const validatorOf = (sessions: SessionStoreService): SessionValidatorService => ({
  validate: (id) =>
    sessions.get(id).pipe(
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
