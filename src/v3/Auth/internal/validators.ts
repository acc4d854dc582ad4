import * as Cache from "effect/Cache"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import {
  type CacheSettings,
  cacheSettings as checkCacheOptions,
  checkLookup,
  type MemorySessions,
  memoryEntries,
  memoryEntryError,
  type SessionLookup
} from "../../../core/authService.js"
import { line } from "../../Client/internal/line.js"
import { SessionData } from "../SessionData.js"
import type { CacheOptions, SessionValidatorService } from "../SessionValidator.js"
import { SessionValidatorUnavailable } from "../SessionValidatorUnavailable.js"

export type ValidatorService = SessionValidatorService

const decodeSession = Schema.decodeUnknown(SessionData)

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
              description: `the answer is not SessionData (at ${pathsOf(error)})`
            })
        )
      )

/** Where an answer failed to decode, without the values found there (they may quote the id). */
const pathsOf = (error: ParseResult.ParseError): string =>
  [
    ...new Set(
      ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
        issue.path.length === 0 ? "the root" : issue.path.map(String).join(".")
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

export const memory = (sessions: MemorySessions): ValidatorService => {
  const table = new Map<string, SessionData>()
  for (const [id, session] of memoryEntries(sessions)) {
    const decoded = Schema.decodeUnknownEither(SessionData)(session)
    if (decoded._tag === "Left") {
      throw memoryEntryError(ParseResult.TreeFormatter.formatErrorSync(decoded.left))
    }
    table.set(id, decoded.right)
  }
  const lookup = (id: Redacted.Redacted<string>) =>
    Option.fromNullable(table.get(Redacted.value(id)))
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
    const clock = yield* Effect.clock
    const settled = new Map<string, Settled>()
    const ttlOf = (answer: Option.Option<SessionData>) =>
      Option.isSome(answer) ? settings.ttlMillis : settings.negativeTtlMillis
    const remember = (key: string, answer: Option.Option<SessionData>) => {
      const ttl = ttlOf(answer)
      settled.delete(key)
      if (ttl <= 0) return
      settled.set(key, {
        answer: Option.some(answer),
        until: clock.unsafeCurrentTimeMillis() + ttl
      })
      if (settled.size > settings.capacity) settled.delete(settled.keys().next().value as string)
    }
    const cache = yield* Cache.makeWith({
      capacity: settings.capacity,
      lookup: (key: string) =>
        Effect.tap(underlying.validate(Redacted.make(key)), (answer) =>
          Effect.sync(() => remember(key, answer))
        ),
      timeToLive: Exit.match({ onFailure: () => 0, onSuccess: ttlOf })
    })
    const known = (id: Redacted.Redacted<string>) => {
      const hit = settled.get(Redacted.value(id))
      return hit !== undefined && clock.unsafeCurrentTimeMillis() < hit.until
        ? hit.answer
        : Option.none()
    }
    return {
      validate: (id) => {
        const hit = known(id)
        if (Option.isSome(hit)) return Effect.succeed(hit.value)
        const key = Redacted.value(id)
        return cache.get(key).pipe(Effect.tapErrorCause(() => cache.invalidate(key)))
      },
      known
    }
  })

interface Settled {
  readonly answer: Option.Option<Option.Option<SessionData>>
  /** Clock time (ms) until which the answer holds. */
  readonly until: number
}
