import * as Cache from "effect/Cache"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { line } from "../../Client/internal/line.js"
import {
  type CacheSettings,
  cacheSettings as checkCacheOptions,
  checkLookup,
  type MemorySessions,
  memoryEntries,
  memoryEntryError,
  type SessionLookup
} from "../../core/authService.js"
import { SessionData } from "../SessionData.js"
import type { CacheOptions, SessionValidatorService } from "../SessionValidator.js"
import { SessionValidatorUnavailable } from "../SessionValidatorUnavailable.js"

export type ValidatorService = SessionValidatorService

const decodeSession = Schema.decodeUnknownEffect(SessionData)

/** `null`/`undefined` → invalid; anything else must decode as `SessionData`. */
export const decodeAnswer = (
  answer: unknown
): Effect.Effect<Option.Option<SessionData>, SessionValidatorUnavailable> =>
  answer == null
    ? Effect.succeedNone
    : decodeSession(answer).pipe(
        Effect.map(Option.some),
        Effect.mapError(
          (error) =>
            new SessionValidatorUnavailable({
              reason: "InvalidResponse",
              description: `the answer is not SessionData (at ${pathsOf(error.issue)})`
            })
        )
      )

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Where an answer failed to decode, without the values found there (they may quote the id). */
const pathsOf = (issue: SchemaIssue.Issue): string =>
  [
    ...new Set(
      formatter(issue).issues.map((found) =>
        found.path === undefined || found.path.length === 0
          ? "the root"
          : found.path
              .map((segment) => String(typeof segment === "object" ? segment.key : segment))
              .join(".")
      )
    )
  ].join(", ")

export const fromPromise = (lookup: SessionLookup): ValidatorService => {
  checkLookup(lookup)
  return {
    validate: (id) =>
      Effect.tryPromise({
        try: async (signal) => lookup(Redacted.value(id), signal),
        catch: (cause) =>
          new SessionValidatorUnavailable({
            reason: "Failure",
            description: "the lookup rejected",
            cause
          })
      }).pipe(Effect.flatMap(decodeAnswer))
  }
}

const decodeEntry = Schema.decodeUnknownResult(SessionData)

export const memory = (sessions: MemorySessions): ValidatorService => {
  const table = new Map<string, SessionData>()
  for (const [id, session] of memoryEntries(sessions)) {
    const decoded = decodeEntry(session)
    if (decoded._tag === "Failure") throw memoryEntryError(decoded.failure.message)
    table.set(id, decoded.success)
  }
  const lookup = (id: Redacted.Redacted<string>) =>
    Option.fromNullishOr(table.get(Redacted.value(id)))
  return { validate: (id) => Effect.succeed(lookup(id)), known: (id) => Option.some(lookup(id)) }
}

/** Checks the options at once, so that a bad `ttl` throws where `cached` is called. */
export const cacheSettings = (options: CacheOptions): CacheSettings =>
  checkCacheOptions(line.durationMillis, options)

/**
 * Valid sessions live for `ttl`, invalid ones for `negativeTtl`; an unavailable answer is dropped
 * from the cache at once, so the next request asks again. Keyed by the raw id, which never leaves.
 *
 * Effect's `Cache` does the lookups (concurrent requests for one id share one lookup, capacity,
 * TTL). Beside it, the answers its lookups settled are kept with their expiry time for `known`:
 * a hit is answered there, synchronously, without running the Cache's Effect.
 */
export const cached = (
  underlying: ValidatorService,
  settings: CacheSettings
): Effect.Effect<ValidatorService> =>
  Effect.gen(function* () {
    const clock = yield* Clock.Clock
    const settled = new Map<string, Settled>()
    const ttlOf = (answer: Option.Option<SessionData>) =>
      Option.isSome(answer) ? settings.ttlMillis : settings.negativeTtlMillis
    const remember = (key: string, answer: Option.Option<SessionData>) => {
      const ttl = ttlOf(answer)
      settled.delete(key)
      if (ttl <= 0) return
      settled.set(key, {
        answer: Option.some(answer),
        until: clock.currentTimeMillisUnsafe() + ttl
      })
      if (settled.size > settings.capacity) settled.delete(settled.keys().next().value as string)
    }
    const cache = yield* Cache.makeWith(
      (key: string) =>
        Effect.tap(underlying.validate(Redacted.make(key)), (answer) =>
          Effect.sync(() => remember(key, answer))
        ),
      {
        capacity: settings.capacity,
        timeToLive: Exit.match({ onFailure: () => 0, onSuccess: ttlOf })
      }
    )
    const known = (id: Redacted.Redacted<string>) => {
      const hit = settled.get(Redacted.value(id))
      return hit !== undefined && clock.currentTimeMillisUnsafe() < hit.until
        ? hit.answer
        : Option.none()
    }
    return {
      validate: (id) => {
        const hit = known(id)
        if (Option.isSome(hit)) return Effect.succeed(hit.value)
        const key = Redacted.value(id)
        return Cache.get(cache, key).pipe(Effect.tapCause(() => Cache.invalidate(cache, key)))
      },
      known
    }
  })

interface Settled {
  readonly answer: Option.Option<Option.Option<SessionData>>
  /** Clock time (ms) until which the answer holds. */
  readonly until: number
}
