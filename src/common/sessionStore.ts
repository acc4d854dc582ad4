/**
 * The session stores over what a line gives them — a key-value store, or a connected Redis client —
 * written against the Effect API both lines share. The line brings its `KeyValueStore`, its lock,
 * its Redis connection and its `SessionData` decoding.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { DurationMillis } from "../core/authOptions.js"
import type { SessionDataInput } from "../core/authRules.js"
import { describe } from "../core/describe.js"
import {
  redisSettings as checkRedisOptions,
  checkUserId,
  checkUserIdOf,
  deadlineOf,
  type Entry,
  isHandle,
  type LifetimeOptions,
  type Lifetimes,
  lifetimesFrom,
  lifetimesOf,
  parseEntry,
  parseIndex,
  type RedisConnection,
  type RedisSettings,
  randomHandle,
  randomId,
  redisClient,
  sha256,
  sha256Sync,
  TOUCH_EVERY_IDLE_DIVISOR,
  TOUCH_EVERY_MAX_MILLIS,
  touchIsDue,
  withLifecycle
} from "../core/sessionStore.js"
import type { SessionInfoOf, SessionStoreServiceOf } from "./authServices.js"
import type { AuthDialect } from "./dialect.js"
import { connectRedis, redisUrlOf } from "./redis.js"
import { SessionStoreError } from "./SessionStoreError.js"
import { SessionValidatorUnavailable } from "./SessionValidatorUnavailable.js"

/** The store's operations, as each line's `SessionStoreService` declares them. */
export type Store<Session> = SessionStoreServiceOf<unknown, Session>

/** What a store needs of its line. */
export interface StoreLine<Session> {
  readonly durationMillis: DurationMillis
  /** The line's `SessionData` decoding; `undefined` when a stored session does not decode. */
  readonly decodeSession: (value: unknown) => Session | undefined
  /** `self` failing with `onTimeout()` when it takes longer than `millis`. */
  readonly timeout: AuthDialect<Session>["timeout"]
}

/** What the stores need of a line, from its dialect. */
const storeLineOf = <Session>(line: AuthDialect<Session>): StoreLine<Session> => ({
  durationMillis: line.client.durationMillis,
  decodeSession: (value) => {
    const decoded = line.decodeSession(value)
    return decoded._tag === "Session" ? decoded.session : undefined
  },
  timeout: line.timeout
})

/** The SHA-256 of a string: at once where the runtime has `node:crypto`, else Web Crypto's. */
const digestOf = (value: string): Effect.Effect<string> => {
  const digest = sha256Sync
  return digest === undefined
    ? Effect.promise(() => sha256(value))
    : Effect.sync(() => digest(value))
}

/**
 * The digests of the ids met lately, by id, the oldest dropped first past {@link ID_DIGESTS}: a
 * session in use is read request after request (each with a `Redacted` of its own), and its
 * digest is computed once.
 */
const idDigests = new Map<string, string>()
const ID_DIGESTS = 1024

/**
 * The id a store operation was given, read: a `TypeError` that names the mistake (a defect of the
 * operation's Effect) when it is not a `Redacted` string, or one the application wiped.
 */
const rawId = (id: Redacted.Redacted<string>): string => {
  if (Redacted.isRedacted(id)) {
    try {
      const raw: unknown = Redacted.value(id)
      if (typeof raw === "string") return raw
    } catch {
      // wiped: said below
    }
  }
  throw new TypeError(
    Redacted.isRedacted(id)
      ? "SessionStore: the session id is not a string, or was wiped before the store read it"
      : `SessionStore: a session id must be a Redacted string (Redacted.make(id)), not a ${typeof id}`
  )
}

/** `f` of the SHA-256 of the id: one step where the runtime has `node:crypto`. */
const withIdDigest = <A, E, R>(
  id: Redacted.Redacted<string>,
  f: (digest: string) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const digest = sha256Sync
  if (digest === undefined)
    return Effect.flatMap(
      Effect.suspend(() => digestOf(rawId(id))),
      f
    )
  return Effect.suspend(() => {
    const raw = rawId(id)
    let known = idDigests.get(raw)
    if (known === undefined) {
      known = digest(raw)
      if (idDigests.size >= ID_DIGESTS) idDigests.delete(idDigests.keys().next().value!)
      idDigests.set(raw, known)
    }
    return f(known)
  })
}

const freshId = Effect.sync(() => Redacted.make(randomId()))

/** A store's failure as its `SessionStoreError`, without the id (the cause never holds it). */
const failingAs =
  (operation: SessionStoreError["operation"]) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, SessionStoreError, R> =>
    Effect.mapError(self, (cause) => new SessionStoreError({ operation, cause }))

/** The session to store, as the line decodes it: what does not decode is not stored. */
const checked = <Session>(line: StoreLine<Session>, session: SessionDataInput) => {
  const decoded = line.decodeSession(session)
  return decoded === undefined
    ? Effect.fail(new TypeError("the session to store is not SessionData"))
    : Effect.succeed(decoded)
}

/** A line's `KeyValueStore`, as the store uses it. */
export interface KeyValues {
  readonly get: (key: string) => Effect.Effect<string | undefined, unknown>
  readonly set: (key: string, value: string) => Effect.Effect<void, unknown>
  /** Removing what is already gone succeeds. */
  readonly remove: (key: string) => Effect.Effect<void, unknown>
}

/** The user id of a stored session (every line's `SessionData` has one). */
const userIdOf = (session: unknown): string => (session as { readonly user_id: string }).user_id

/** A session as `list` shows it. */
const infoOf = <Session>(
  session: Session,
  handle: string,
  createdAt: number,
  lastSeenAt: number,
  deadline: number
): SessionInfoOf<Session> => ({
  handle,
  createdAt: new Date(createdAt),
  lastSeenAt: new Date(lastSeenAt),
  expiresAt: new Date(deadline),
  data: session
})

/**
 * The file store's directory, made before the store makes it with the default mode: session data
 * (emails, permissions) readable by its owner only. `fileSystem` is the line's `FileSystem` key.
 */
export const privateDirectory = <
  FileSystem extends {
    readonly makeDirectory: (
      path: string,
      options: { readonly recursive: boolean; readonly mode: number }
    ) => Effect.Effect<void, unknown>
  },
  R
>(
  fileSystem: Effect.Effect<FileSystem, never, R>,
  directory: string
): Layer.Layer<never, ErrorOf<ReturnType<FileSystem["makeDirectory"]>>, R> =>
  Layer.effectDiscard(
    Effect.flatMap(
      fileSystem,
      (files) =>
        files.makeDirectory(directory, { recursive: true, mode: 0o700 }) as Effect.Effect<
          void,
          ErrorOf<ReturnType<FileSystem["makeDirectory"]>>
        >
    )
  )

/** The failure of an `Effect` type. */
type ErrorOf<T> = T extends Effect.Effect<unknown, infer E, unknown> ? E : never

/**
 * The store over a `KeyValueStore`: one entry per session under `session-<sha256(id)>`, one index
 * per user under `user-<sha256(user_id)>`. Expiry is checked on read. Every write (`touch` too)
 * runs under `lock`, so that the index is exact and no write brings back a session that `rotate`
 * or `revoke` ended, within one process; several processes must not share one directory.
 * `adopt` takes in what an earlier process wrote (see {@link fileStoreOf}).
 */
const keyValueStore = <Session>(
  line: StoreLine<Session>,
  kv: KeyValues,
  lock: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  defaults: Lifetimes
): {
  readonly store: Store<Session>
  readonly adopt: (indexKeys: ReadonlyArray<string>) => Effect.Effect<void>
} => {
  const sessionKey = (id: Redacted.Redacted<string>) =>
    withIdDigest(id, (digest) => Effect.succeed(`session-${digest}`))
  const userKey = (userId: string) => Effect.map(digestOf(userId), (digest) => `user-${digest}`)
  const readIndex = (key: string) => Effect.map(kv.get(key), parseIndex)
  const readEntry = (key: string) =>
    Effect.map(kv.get(key), (text) =>
      text === undefined ? undefined : parseEntry(text, line.decodeSession)
    )

  /**
   * The sessions this store wrote (or adopted), by key: their user's index, and when they end at
   * the latest it knows (a use may have moved it). Swept as it grows, so that a session nobody
   * presents again, of a user who never signs in again, leaves the store too: every session of a
   * memory store, and of a file store those it wrote and those it found when it opened.
   */
  const written = new Map<string, { deadline: number; readonly indexKey: string }>()
  let sweepAt = 1024

  /** Removes the written sessions that have ended, and them from their users' indexes (under `lock`). */
  const sweep = (now: number) =>
    Effect.gen(function* () {
      const indexes = new Set<string>()
      for (const [key, known] of written) {
        if (known.deadline > now) continue
        const entry = yield* live(key)
        if (Option.isSome(entry)) known.deadline = deadlineOf(entry.value)
        else {
          written.delete(key)
          indexes.add(known.indexKey)
        }
      }
      for (const indexKey of indexes) yield* liveOfUser(indexKey)
      sweepAt = Math.max(1024, written.size * 2)
    })

  /** The live entry under `key`; an expired one is removed on the way. */
  const live = (key: string) =>
    Effect.gen(function* () {
      const entry = yield* readEntry(key)
      if (entry === undefined) return Option.none<Entry<Session>>()
      if (deadlineOf(entry) <= (yield* Clock.currentTimeMillis)) {
        yield* kv.remove(key)
        return Option.none<Entry<Session>>()
      }
      return Option.some(entry)
    })

  const create: Store<Session>["create"] = (session, options) => {
    const { idleMillis, ttlMillis } = lifetimesOf(line.durationMillis, defaults, options)
    return Effect.gen(function* () {
      const decoded = yield* checked(line, session)
      const id = yield* freshId
      const key = yield* sessionKey(id)
      const now = yield* Clock.currentTimeMillis
      const entry: Entry<Session> = {
        session: decoded,
        expiresAt: now + ttlMillis,
        idleMillis,
        ...(idleMillis > 0 ? { idleUntil: now + idleMillis } : {}),
        handle: randomHandle(),
        createdAt: now,
        lastSeenAt: now
      }
      const value = JSON.stringify(entry)
      const indexKey = yield* userKey(session.user_id)
      yield* lock(
        Effect.gen(function* () {
          yield* kv.set(key, value)
          // the user's sessions that have ended (expired, revoked) leave the index, and the store,
          // here: an index holds live sessions only, however often its user signs in
          const kept = (yield* liveOfUser(indexKey)).map(([listed]) => listed)
          yield* kv.set(indexKey, JSON.stringify([...kept, key]))
          written.set(key, { deadline: deadlineOf(entry), indexKey })
          if (written.size >= sweepAt) yield* sweep(now)
        })
      )
      return id
    }).pipe(failingAs("create"))
  }

  const get: Store<Session>["get"] = (id) =>
    Effect.flatMap(sessionKey(id), live).pipe(
      Effect.map(Option.map((entry) => entry.session)),
      failingAs("get")
    )

  /** A use is written down (under `lock`) only when it is due; most uses read and write nothing. */
  const touch: Store<Session>["touch"] = (id) =>
    Effect.gen(function* () {
      const key = yield* sessionKey(id)
      const found = yield* live(key)
      if (Option.isNone(found)) return Option.none<Session>()
      const { idleMillis, lastSeenAt, session } = found.value
      return touchIsDue(lastSeenAt, idleMillis, yield* Clock.currentTimeMillis)
        ? yield* recordUse(key)
        : Option.some(session)
    }).pipe(failingAs("touch"))

  /** The session under `key`, seen now and its idle deadline moved on; `None` when it is gone. */
  const recordUse = (key: string) =>
    lock(
      Effect.gen(function* () {
        const entry = yield* live(key)
        if (Option.isNone(entry)) return Option.none<Session>()
        const now = yield* Clock.currentTimeMillis
        const { idleMillis } = entry.value
        const seen = {
          ...withLifecycle(entry.value, now),
          lastSeenAt: now,
          ...(idleMillis > 0 ? { idleUntil: now + idleMillis } : {})
        }
        yield* kv.set(key, JSON.stringify(seen))
        return Option.some(entry.value.session)
      })
    )

  const revoke: Store<Session>["revoke"] = (id) =>
    Effect.flatMap(sessionKey(id), (key) => lock(kv.remove(key))).pipe(failingAs("revoke"))

  /** The index of `indexKey` as `keys`. */
  const writeIndex = (indexKey: string, keys: ReadonlyArray<string>) =>
    keys.length === 0 ? kv.remove(indexKey) : kv.set(indexKey, JSON.stringify(keys))

  const rotate: Store<Session>["rotate"] = (id) =>
    Effect.flatMap(sessionKey(id), (key) =>
      lock(
        Effect.gen(function* () {
          const entry = yield* live(key)
          if (Option.isNone(entry)) return Option.none<Redacted.Redacted<string>>()
          const now = yield* Clock.currentTimeMillis
          const rotated = yield* freshId
          const rotatedKey = yield* sessionKey(rotated)
          // the old id goes first: there is never a moment with two live ids for the session
          yield* kv.remove(key)
          const rotatedEntry = withLifecycle(entry.value, now)
          yield* kv.set(rotatedKey, JSON.stringify(rotatedEntry))
          const indexKey = yield* userKey(userIdOf(entry.value.session))
          written.delete(key)
          written.set(rotatedKey, { deadline: deadlineOf(rotatedEntry), indexKey })
          const listed = yield* readIndex(indexKey)
          // in the old one's place: a list keeps the order of creation
          yield* writeIndex(
            indexKey,
            listed.includes(key)
              ? listed.map((found) => (found === key ? rotatedKey : found))
              : [...listed, rotatedKey]
          )
          return Option.some(rotated)
        })
      )
    ).pipe(failingAs("rotate"))

  const handleOf: Store<Session>["handleOf"] = (id) =>
    Effect.flatMap(sessionKey(id), (key) =>
      lock(
        Effect.gen(function* () {
          const entry = yield* live(key)
          if (Option.isNone(entry)) return Option.none<string>()
          if (entry.value.handle !== undefined) return Option.some(entry.value.handle)
          // an entry written before sessions had handles gets its handle now, for good
          const kept = withLifecycle(entry.value, yield* Clock.currentTimeMillis)
          yield* kv.set(key, JSON.stringify(kept))
          return Option.some(kept.handle)
        })
      )
    ).pipe(failingAs("handleOf"))

  /** The live entries of a user's index, with their keys; the index keeps only those. */
  const liveOfUser = (indexKey: string) =>
    Effect.gen(function* () {
      const listed = yield* readIndex(indexKey)
      const found: Array<readonly [string, Entry<Session>]> = []
      for (const key of listed) {
        const entry = yield* live(key)
        if (Option.isSome(entry)) found.push([key, entry.value])
      }
      if (found.length !== listed.length) {
        yield* writeIndex(
          indexKey,
          found.map(([key]) => key)
        )
      }
      return found
    })

  const list: Store<Session>["list"] = (userId) =>
    Effect.flatMap(userKey(checkUserIdOf("list", userId)), (indexKey) =>
      lock(
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const infos: Array<SessionInfoOf<Session>> = []
          for (const [key, entry] of yield* liveOfUser(indexKey)) {
            const kept = withLifecycle(entry, now)
            // an entry written before sessions had handles gets its handle now, for good
            if (entry.handle === undefined) yield* kv.set(key, JSON.stringify(kept))
            infos.push(
              infoOf(kept.session, kept.handle, kept.createdAt, kept.lastSeenAt, deadlineOf(kept))
            )
          }
          return infos.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        })
      )
    ).pipe(failingAs("list"))

  const revokeHandle: Store<Session>["revokeHandle"] = (userId, handle) =>
    Effect.flatMap(userKey(checkUserIdOf("revokeHandle", userId)), (indexKey) =>
      !isHandle(handle)
        ? Effect.succeed(false)
        : lock(
            Effect.gen(function* () {
              const entries = yield* liveOfUser(indexKey)
              const match = entries.find(([, entry]) => entry.handle === handle)
              if (match === undefined) return false
              yield* kv.remove(match[0])
              yield* writeIndex(
                indexKey,
                entries.filter(([key]) => key !== match[0]).map(([key]) => key)
              )
              return true
            })
          )
    ).pipe(failingAs("revokeHandle"))

  const revokeOthers: Store<Session>["revokeOthers"] = (id) =>
    Effect.flatMap(sessionKey(id), (key) =>
      lock(
        Effect.gen(function* () {
          const entry = yield* live(key)
          if (Option.isNone(entry)) return 0
          const indexKey = yield* userKey(userIdOf(entry.value.session))
          let revoked = 0
          for (const [other] of yield* liveOfUser(indexKey)) {
            if (other === key) continue
            yield* kv.remove(other)
            revoked++
          }
          yield* writeIndex(indexKey, [key])
          return revoked
        })
      )
    ).pipe(failingAs("revokeOthers"))

  const revokeUser: Store<Session>["revokeUser"] = (userId) =>
    Effect.flatMap(userKey(checkUserId(userId)), (indexKey) =>
      lock(
        Effect.gen(function* () {
          let revoked = 0
          for (const key of yield* readIndex(indexKey)) {
            if (Option.isSome(yield* live(key))) revoked++
            yield* kv.remove(key)
          }
          yield* kv.remove(indexKey)
          return revoked
        })
      )
    ).pipe(failingAs("revokeUser"))

  /**
   * Takes in the sessions listed by `indexKeys` (users' indexes an earlier process wrote): each
   * user's ended sessions leave now, the live ones join `written`, to leave once they end. One
   * user at a time, each under `lock`; a user whose files cannot be read is left as found.
   */
  const adopt = (indexKeys: ReadonlyArray<string>): Effect.Effect<void> =>
    Effect.forEach(
      indexKeys,
      (indexKey) =>
        Effect.ignore(
          lock(
            Effect.map(liveOfUser(indexKey), (found) => {
              for (const [key, entry] of found) {
                if (!written.has(key)) written.set(key, { deadline: deadlineOf(entry), indexKey })
              }
            })
          )
        ),
      { discard: true }
    )

  const store: Store<Session> = {
    create,
    get,
    touch,
    revoke,
    revokeUser,
    rotate,
    handleOf,
    list,
    revokeHandle,
    revokeOthers
  }
  return { store, adopt }
}

/** The Redis store's settings; bad options throw here, where the layer is made. */
export const redisSettings = (
  durationMillis: DurationMillis,
  options: Parameters<typeof checkRedisOptions>[2] & { readonly url?: unknown }
): RedisSettings => checkRedisOptions(durationMillis, redisUrlOf(options), options)

/** A failure to connect, as the store's error. */
const connectFailure = (description: string | undefined, cause: unknown) =>
  new SessionStoreError({
    operation: "connect",
    ...(description === undefined ? {} : { description }),
    ...(cause === undefined ? {} : { cause })
  })

/**
 * The Redis store over one connection, for the layer's lifetime. Bad options throw here, where the
 * layer is made.
 */
export const connectedRedisStore = <Session>(
  dialect: AuthDialect<Session>,
  options: Parameters<typeof redisSettings>[1]
): Effect.Effect<Store<Session>, SessionStoreError, Scope.Scope> => {
  const line = storeLineOf(dialect)
  const settings = redisSettings(line.durationMillis, options)
  return Effect.map(
    connectRedis(line.timeout, settings, () => redisClient(settings), connectFailure),
    (redis) => redisStore(line, redis, settings)
  )
}

/**
 * The store over the application's `KeyValueStore` (the line's service), its index kept under a
 * lock of its own. Bad options throw here, where the layer is made.
 */
export const keyValueStoreOf = <Session>(
  dialect: AuthDialect<Session>,
  options: LifetimeOptions
): Effect.Effect<Store<Session>, never, unknown> => {
  const line = storeLineOf(dialect)
  const defaults = lifetimesFrom(line.durationMillis, options)
  return Effect.flatMap(dialect.keyValueStore, (kv) =>
    Effect.map(dialect.makeLock, (lock) => keyValueStore(line, kv, lock, defaults).store)
  )
}

/**
 * The file store: {@link keyValueStoreOf} over the files of `directory` (the line's
 * `KeyValueStore` on its file system), which also takes in, in the background, the sessions an
 * earlier process wrote there, so that those nobody presents again leave it as they end too.
 * `fileSystem` is the line's `FileSystem` key; the fiber ends with the layer's scope.
 */
export const fileStoreOf = <
  Session,
  FileSystem extends {
    readonly readDirectory: (path: string) => Effect.Effect<ReadonlyArray<string>, unknown>
  },
  R
>(
  dialect: AuthDialect<Session>,
  fileSystem: Effect.Effect<FileSystem, never, R>,
  directory: string,
  options: LifetimeOptions
): Effect.Effect<Store<Session>, never, unknown> => {
  const line = storeLineOf(dialect)
  if (typeof directory !== "string" || directory.length === 0) {
    throw new TypeError(
      `SessionStore.layerFileSystem: directory must be a non-empty path, got ${describe(directory)}`
    )
  }
  const defaults = lifetimesFrom(line.durationMillis, options)
  return Effect.gen(function* () {
    const kv = yield* dialect.keyValueStore
    const { store, adopt } = keyValueStore(line, kv, yield* dialect.makeLock, defaults)
    const files = yield* fileSystem
    // the files are named by their keys (URI-encoded: a digest's characters stay as they are)
    const names = yield* Effect.orElseSucceed(
      files.readDirectory(directory),
      (): ReadonlyArray<string> => []
    )
    // a user's index, by its name (`user-` and a SHA-256 in hex): no other file is the store's
    const indexKeys = names.filter((name) => /^user-[0-9a-f]{64}$/.test(name))
    if (indexKeys.length > 0) yield* Effect.forkScoped(adopt(indexKeys))
    return store
  })
}

/** How many decoded sessions a Redis store keeps, by their stored JSON. */
const DECODED_CAPACITY = 1_024

/**
 * How long a Redis store trusts its reading of Redis's clock (`touch` reads it again after): at
 * most this, and at most a quarter of a session's idle timeout, so that a reading gone wrong (the
 * monotonic clock stopped while the host slept, Redis's clock stepped) delays a use's record by
 * no more than that.
 */
const REDIS_CLOCK_READING_MILLIS = 30_000

/**
 * How early a use counts as maybe due (`touch`): more than the monotonic clock's drift from
 * Redis's over a reading's life. The reading itself errs early: it is dated when its command was
 * sent, before Redis read its clock.
 */
const CLOCK_MARGIN_MILLIS = 100

/**
 * The store over a connected Redis client (`core/sessionStore.ts` has its scripts): every time is
 * Redis's own, and Redis's key expiry ends sessions.
 */
export const redisStore = <Session>(
  line: StoreLine<Session>,
  redis: RedisConnection,
  settings: RedisSettings
): Store<Session> => {
  const keyOf = (digest: string) => `${settings.keyPrefix}session:${digest}`
  const sessionKey = (id: Redacted.Redacted<string>) =>
    withIdDigest(id, (digest) => Effect.succeed(keyOf(digest)))
  const userKey = (userId: string) =>
    Effect.map(digestOf(userId), (digest) => `${settings.keyPrefix}user:${digest}`)
  const call = <A>(command: () => Promise<A>) => Effect.tryPromise(command)
  /**
   * The sessions decoded lately, by their stored JSON (the oldest goes first): a session in use is
   * decoded once, not at every request. A decoded session is frozen (`rules.sessionDecoded`), so
   * the one handed out again and again cannot be changed by whoever got it before.
   */
  const decoded = new Map<string, Option.Option<Session>>()
  /** A stored session as found: `None` when it is gone (or does not decode). */
  const sessionFrom = (data: string | null): Option.Option<Session> => {
    if (data === null) return Option.none()
    const known = decoded.get(data)
    if (known !== undefined) return known
    const entry = parseEntry(`{"session":${data},"expiresAt":0}`, line.decodeSession)
    const found = entry === undefined ? Option.none<Session>() : Option.some(entry.session)
    if (decoded.size >= DECODED_CAPACITY) decoded.delete(decoded.keys().next().value as string)
    decoded.set(data, found)
    return found
  }

  const create: Store<Session>["create"] = (session, options) => {
    const { idleMillis, ttlMillis } = lifetimesOf(line.durationMillis, settings.lifetimes, options)
    return Effect.gen(function* () {
      const data = JSON.stringify(yield* checked(line, session))
      const id = yield* freshId
      const key = yield* sessionKey(id)
      const index = yield* userKey(session.user_id)
      yield* call(() => redis.svcCreate(key, index, data, ttlMillis, idleMillis, randomHandle()))
      return id
    }).pipe(failingAs("create"))
  }

  const get: Store<Session>["get"] = (id) =>
    Effect.flatMap(sessionKey(id), (key) => call(() => redis.hget(key, "data"))).pipe(
      Effect.map(sessionFrom),
      failingAs("get")
    )

  /**
   * Redis's clock as this instance last read it (the time `TOUCH` answers with), moved on by this
   * process's monotonic clock since: `performance.now()` plus `redisOffset`, for as long as it is
   * trusted (REDIS_CLOCK_READING_MILLIS).
   */
  let redisOffset = 0
  let readAt = Number.NEGATIVE_INFINITY
  const redisNow = (idleMillis: number): number | undefined => {
    const now = performance.now()
    const trusted =
      idleMillis > 0
        ? Math.min(REDIS_CLOCK_READING_MILLIS, idleMillis / 4)
        : REDIS_CLOCK_READING_MILLIS
    return now - readAt < trusted ? now + redisOffset : undefined
  }
  const touchScript = (key: string) => {
    // dated when sent: Redis reads its clock later, so the reading runs ahead (a use looks due
    // early), never behind
    const sentAt = performance.now()
    return Effect.map(
      call(() => redis.svcTouch(key, TOUCH_EVERY_MAX_MILLIS, TOUCH_EVERY_IDLE_DIVISOR)),
      ([data, now]) => {
        if (sentAt >= readAt) {
          readAt = sentAt
          redisOffset = Number(now) - sentAt
        }
        return data
      }
    )
  }

  /**
   * A guard's validation. A use that is not due (touchIsDue by Redis's clock as last read) is a
   * plain read: one `HMGET`, a tenth of the script's cost to Redis. Otherwise it runs `TOUCH`,
   * which decides by Redis's own time and writes the use down when it is due: a use that may be
   * due, one without a trusted reading, and one of a session last seen after the reading's now
   * (the reading is behind Redis's clock, which it also reads again).
   */
  const touch: Store<Session>["touch"] = (id) =>
    withIdDigest(id, (digest) => {
      const key = keyOf(digest)
      const started = performance.now()
      return Effect.flatMap(
        call(() => redis.hmget(key, "data", "idle", "seen")),
        ([data = null, idleText, seenText]) => {
          if (data === null) return Effect.succeed(null)
          const idle = Number(idleText ?? 0)
          const seen = Number(seenText ?? Number.NaN)
          // fields that are not numbers: the script decides
          const now = Number.isFinite(idle) && Number.isFinite(seen) ? redisNow(idle) : undefined
          const due =
            now === undefined || seen > now || touchIsDue(seen, idle, now + CLOCK_MARGIN_MILLIS)
          if (!due) return Effect.succeed(data)
          // the script, in what is left of one commandTimeout: touch answers within it, as the
          // guards are told (answersWithinMillis), however long the read took
          return line.timeout(
            touchScript(key),
            Math.max(0, settings.commandTimeoutMillis - (performance.now() - started)),
            () => new Error("touch took longer than commandTimeout")
          )
        }
      )
    }).pipe(Effect.map(sessionFrom), failingAs("touch"))

  const revoke: Store<Session>["revoke"] = (id) =>
    Effect.flatMap(sessionKey(id), (key) => call(() => redis.del(key))).pipe(
      Effect.asVoid,
      failingAs("revoke")
    )

  const revokeUser: Store<Session>["revokeUser"] = (userId) =>
    Effect.flatMap(userKey(checkUserId(userId)), (index) =>
      call(() => redis.svcRevokeUser(index))
    ).pipe(failingAs("revokeUser"))

  const rotate: Store<Session>["rotate"] = (id) =>
    Effect.gen(function* () {
      const key = yield* sessionKey(id)
      const rotated = yield* freshId
      const rotatedKey = yield* sessionKey(rotated)
      const moved = yield* call(() => redis.svcRotate(key, rotatedKey))
      return moved === 1 ? Option.some(rotated) : Option.none()
    }).pipe(failingAs("rotate"))

  const handleOf: Store<Session>["handleOf"] = (id) =>
    Effect.flatMap(sessionKey(id), (key) =>
      call(() => redis.svcHandleOf(key, randomHandle()))
    ).pipe(
      Effect.map((handle) => (handle === null ? Option.none() : Option.some(handle))),
      failingAs("handleOf")
    )

  const list: Store<Session>["list"] = (userId) =>
    Effect.flatMap(userKey(checkUserIdOf("list", userId)), (index) =>
      call(() => redis.svcList(index))
    ).pipe(
      Effect.map((values) => {
        const infos: Array<SessionInfoOf<Session>> = []
        for (let at = 0; at + 5 < values.length; at += 6) {
          const session = sessionFrom(values[at] ?? null)
          if (Option.isNone(session)) continue
          const seen = Number(values[at + 3])
          const abs = Number(values[at + 4])
          const idle = Number(values[at + 5])
          // the deadline `create` and `touch` set: the idle one when it comes first
          const deadline = idle > 0 ? Math.min(abs, seen + idle) : abs
          infos.push(
            infoOf(session.value, values[at + 1] ?? "", Number(values[at + 2]), seen, deadline)
          )
        }
        // in the order the script sorted them: creation, to the microsecond
        return infos
      }),
      failingAs("list")
    )

  const revokeHandle: Store<Session>["revokeHandle"] = (userId, handle) =>
    Effect.flatMap(userKey(checkUserIdOf("revokeHandle", userId)), (index) =>
      isHandle(handle)
        ? Effect.map(
            call(() => redis.svcRevokeHandle(index, handle)),
            (ended) => ended === 1
          )
        : Effect.succeed(false)
    ).pipe(failingAs("revokeHandle"))

  const revokeOthers: Store<Session>["revokeOthers"] = (id) =>
    Effect.flatMap(sessionKey(id), (key) => call(() => redis.svcRevokeOthers(key))).pipe(
      failingAs("revokeOthers")
    )

  return {
    create,
    get,
    touch,
    revoke,
    revokeUser,
    rotate,
    handleOf,
    list,
    revokeHandle,
    revokeOthers,
    // touch answers within the client's commandTimeout: a read, then the script in what is left
    // of it (the digest is computed at once)
    ...(sha256Sync === undefined ? {} : { answersWithinMillis: settings.commandTimeoutMillis })
  }
}

/** Live ids are valid (and used: their idle deadline moves on), a store failure is unavailable. */
export const validatorOf = <Session>(
  sessions: Pick<Store<Session>, "touch" | "answersWithinMillis">
) => ({
  ...(sessions.answersWithinMillis === undefined
    ? {}
    : { answersWithinMillis: sessions.answersWithinMillis }),
  validate: (id: Redacted.Redacted<string>) =>
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
