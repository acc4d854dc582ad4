/**
 * The session validators of both lines — `fromPromise`, `memory`, `cached` — over what a line gives
 * them (`dialect.ts`): its `SessionData` decoding, its clock and its `Cache`.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { CacheOptionsOf } from "../core/authOptions.js"
import {
  type CacheSettings,
  cacheSettings,
  checkLookup,
  type MemorySessions,
  memoryEntries,
  memoryEntryError,
  type SessionLookup
} from "../core/authService.js"
import type { SessionValidatorServiceOf } from "./authServices.js"
import type { AuthDialect } from "./dialect.js"
import { SessionValidatorUnavailable } from "./SessionValidatorUnavailable.js"

type Line<Session> = Pick<AuthDialect<Session>, "decodeSession" | "clock" | "cache">

/** `null`/`undefined` → invalid; anything else must decode as `SessionData`. */
export const decodeAnswer = <Session>(
  line: Line<Session>,
  answer: unknown
): Effect.Effect<Option.Option<Session>, SessionValidatorUnavailable> => {
  if (answer == null) return Effect.succeedNone
  const decoded = line.decodeSession(answer)
  return decoded._tag === "Session"
    ? Effect.succeed(Option.some(decoded.session))
    : Effect.fail(
        new SessionValidatorUnavailable({
          reason: "InvalidResponse",
          description: `the answer is not SessionData (at ${decoded.paths})`
        })
      )
}

export const fromPromise = <Session>(
  line: Line<Session>,
  lookup: SessionLookup
): SessionValidatorServiceOf<Session> => {
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
      }).pipe(Effect.flatMap((answer) => decodeAnswer(line, answer)))
  }
}

export const memory = <Session>(
  line: Line<Session>,
  sessions: MemorySessions
): SessionValidatorServiceOf<Session> => {
  const table = new Map<string, Session>()
  for (const [id, session] of memoryEntries(sessions)) {
    const decoded = line.decodeSession(session)
    if (decoded._tag === "NotSession") throw memoryEntryError(decoded.message)
    table.set(id, decoded.session)
  }
  const lookup = (id: Redacted.Redacted<string>): Option.Option<Session> => {
    const session = table.get(Redacted.value(id))
    return session === undefined ? Option.none() : Option.some(session)
  }
  return { validate: (id) => Effect.succeed(lookup(id)), known: (id) => Option.some(lookup(id)) }
}

/**
 * Valid sessions live for `ttl`, invalid ones for `negativeTtl`; an unavailable answer is dropped
 * from the cache at once, so the next request asks again. Keyed by the raw id, which never leaves.
 *
 * Effect's `Cache` does the lookups (concurrent requests for one id share one lookup, capacity,
 * TTL). Beside it, the answers its lookups settled are kept with their expiry time for `known`:
 * a hit is answered there, synchronously, without running the Cache's Effect.
 */
export const cached = <Session>(
  line: Line<Session>,
  underlying: SessionValidatorServiceOf<Session>,
  settings: CacheSettings
): Effect.Effect<SessionValidatorServiceOf<Session>> =>
  Effect.gen(function* () {
    const now = yield* line.clock
    const settled = new Map<string, Settled<Session>>()
    const ttlOf = (answer: Option.Option<Session>) =>
      Option.isSome(answer) ? settings.ttlMillis : settings.negativeTtlMillis
    const remember = (key: string, answer: Option.Option<Session>) => {
      const ttl = ttlOf(answer)
      settled.delete(key)
      if (ttl <= 0) return
      settled.set(key, { answer: Option.some(answer), until: now() + ttl })
      if (settled.size > settings.capacity) settled.delete(settled.keys().next().value as string)
    }
    const get = yield* line.cache(
      (key: string) =>
        Effect.tap(underlying.validate(Redacted.make(key)), (answer) =>
          Effect.sync(() => remember(key, answer))
        ),
      settings.capacity,
      Exit.match({ onFailure: () => 0, onSuccess: ttlOf })
    )
    const known = (id: Redacted.Redacted<string>) => {
      const hit = settled.get(Redacted.value(id))
      return hit !== undefined && now() < hit.until ? hit.answer : Option.none()
    }
    return {
      validate: (id) => {
        const hit = known(id)
        return Option.isSome(hit) ? Effect.succeed(hit.value) : get(Redacted.value(id))
      },
      known
    }
  })

interface Settled<Session> {
  readonly answer: Option.Option<Option.Option<Session>>
  /** Clock time (ms) until which the answer holds. */
  readonly until: number
}

/**
 * `SessionValidator.cached` of a line, over its service key: both call forms,
 * `cached(layer, options)` and `layer.pipe(cached(options))`. Bad options throw at the call.
 */
export const cachedLayer =
  <Session>(line: AuthDialect<Session>, key: unknown) =>
  (selfOrOptions: unknown, options?: CacheOptionsOf<unknown>) => {
    const wrap = (self: Layer.Layer<never, unknown, unknown>, settings: CacheSettings) =>
      Layer.effect(
        key as never,
        Effect.flatMap(key as Effect.Effect<SessionValidatorServiceOf<Session>>, (underlying) =>
          cached(line, underlying, settings)
        )
      ).pipe(Layer.provide(self))
    if (Layer.isLayer(selfOrOptions)) {
      return wrap(
        selfOrOptions as Layer.Layer<never, unknown, unknown>,
        cacheSettings(line.client.durationMillis, options as CacheOptionsOf<unknown>)
      )
    }
    const settings = cacheSettings(
      line.client.durationMillis,
      selfOrOptions as CacheOptionsOf<unknown>
    )
    return (self: Layer.Layer<never, unknown, unknown>) => wrap(self, settings)
  }
