/**
 * Sessions a server issues itself: create one at login (or rotate the one the request came with),
 * look it up per request, list a user's sessions, revoke one at logout (or the user's others, or
 * every session of a user at once). In memory or in files through `@effect/platform`'s
 * `KeyValueStore` for one process, or in Redis for several.
 *
 * @since 0.1.0
 */

import type { PlatformError } from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { SessionInfoOf, SessionStoreServiceOf } from "../../common/authServices.js"
import * as store from "../../common/sessionStore.js"
import type { RedisStoreOptionsOf, SessionLifetimesOf } from "../../core/authOptions.js"
import { auth } from "../internal/auth.js"
import type { SessionData } from "./SessionData.js"
import type { SessionStoreError } from "./SessionStoreError.js"
import { SessionValidator } from "./SessionValidator.js"

export { SessionStoreError } from "./SessionStoreError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionStoreService
  extends SessionStoreServiceOf<Duration.DurationInput, SessionData> {}

/**
 * A live session, as `list` shows it (a device list): `handle` is opaque and safe to show, for
 * `revokeHandle`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionInfo extends SessionInfoOf<SessionData> {}

/**
 * How long a session lives.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionLifetimes extends SessionLifetimesOf<Duration.DurationInput> {}

/**
 * Options of the store layers: the default lifetimes of the sessions they create.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionStoreOptions extends SessionLifetimes {}

/**
 * Options of {@link SessionStore.layerRedis}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RedisStoreOptions
  extends RedisStoreOptionsOf<Duration.DurationInput, string | Redacted.Redacted<string>> {}

/**
 * Where issued sessions live. Entries are keyed by the SHA-256 of the id, so the store's contents
 * (files on disk, say) do not hold usable ids.
 *
 * @example
 * ```ts
 * import { SessionStore } from "svc-sdk/v3/Auth"
 *
 * const Sessions = SessionStore.layerMemory({ ttl: "8 hours" })
 * const Validator = SessionStore.validator // a SessionValidator over the store
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class SessionStore extends Context.Tag("svc-sdk/Auth/SessionStore")<
  SessionStore,
  SessionStoreService
>() {
  /**
   * A store over whatever `KeyValueStore` the application provides.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerKeyValueStore = (
    options?: SessionStoreOptions
  ): Layer.Layer<SessionStore, never, KeyValueStore.KeyValueStore> =>
    Layer.effect(
      SessionStore,
      store.keyValueStoreOf(auth, options) as Effect.Effect<
        SessionStoreService,
        never,
        KeyValueStore.KeyValueStore
      >
    )

  /**
   * Sessions in memory: lost when the process ends. Each layer is a store of its own, even where
   * one app builds two (say, for sessions and for refresh tokens).
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerMemory = (options?: SessionStoreOptions): Layer.Layer<SessionStore> =>
    SessionStore.layerKeyValueStore(options).pipe(
      Layer.provide(Layer.fresh(KeyValueStore.layerMemory))
    )

  /**
   * Sessions as files in `directory` (one per session): they survive a restart. A directory it
   * makes is its owner's alone (mode 0700); one that exists keeps its permissions. What an earlier
   * process wrote there is taken in when the layer opens, in the background: its ended sessions
   * leave the directory then, the others once they end. Needs the
   * platform's `FileSystem` and `Path`, e.g. `NodeContext.layer`.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerFileSystem = (
    directory: string,
    options?: SessionStoreOptions
  ): Layer.Layer<SessionStore, PlatformError, FileSystem.FileSystem | Path.Path> =>
    Layer.scoped(
      SessionStore,
      store.fileStoreOf(auth, FileSystem.FileSystem, directory, options) as Effect.Effect<
        SessionStoreService,
        never,
        KeyValueStore.KeyValueStore | FileSystem.FileSystem | Scope.Scope
      >
    ).pipe(
      Layer.provide(
        KeyValueStore.layerFileSystem(directory).pipe(
          Layer.provide(store.privateDirectory(FileSystem.FileSystem, directory))
        )
      )
    )

  /**
   * Sessions in Redis, shared by every server instance on it: a revoke on one is seen by all at
   * once, and with Redis persistence on they survive a restart of Redis. Redis's own clock and key
   * expiry end sessions. Needs the `ioredis` package. The layer fails with a `SessionStoreError`
   * when Redis cannot be reached, or does not answer, within `connectTimeout`; later, while Redis is
   * away, every command fails at once (a guard answers 500) and the connection comes back by itself.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerRedis = (
    options: RedisStoreOptions
  ): Layer.Layer<SessionStore, SessionStoreError> =>
    Layer.scoped(SessionStore, store.connectedRedisStore(auth, options))

  /**
   * A `SessionValidator` that answers from the store: live ids are valid (and touched), others
   * invalid, a store failure makes the validator unavailable.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly validator: Layer.Layer<SessionValidator, never, SessionStore> = Layer.effect(
    SessionValidator,
    Effect.map(SessionStore, store.validatorOf)
  )
}
