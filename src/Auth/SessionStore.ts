/**
 * Sessions a server issues itself: create one at login, look it up per request, revoke it at
 * logout. One implementation over `@effect/platform`'s `KeyValueStore`, so the same code keeps
 * sessions in memory or in files that survive a restart.
 *
 * @since 0.1.0
 */

import type { PlatformError } from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import type * as Path from "@effect/platform/Path"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as store from "./internal/sessionStore.js"
import type { SessionData, SessionDataInput } from "./SessionData.js"
import type { SessionStoreError } from "./SessionStoreError.js"
import { SessionValidator } from "./SessionValidator.js"

export { SessionStoreError } from "./SessionStoreError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SessionStoreService {
  /**
   * Issues a fresh random id (256 bits, base64url) for `session`, valid for `ttl` (the store's
   * default when omitted).
   */
  readonly create: (
    session: SessionDataInput,
    options?: { readonly ttl?: Duration.DurationInput | undefined }
  ) => Effect.Effect<Redacted.Redacted<string>, SessionStoreError>
  /** The session of a live id; `None` for unknown, revoked or expired ids. */
  readonly get: (
    id: Redacted.Redacted<string>
  ) => Effect.Effect<Option.Option<SessionData>, SessionStoreError>
  /** Forgets an id; revoking an unknown id succeeds. */
  readonly revoke: (id: Redacted.Redacted<string>) => Effect.Effect<void, SessionStoreError>
}

/**
 * Options of the store layers.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionStoreOptions {
  /**
   * How long a session lives after `create`.
   * @default "24 hours"
   */
  readonly ttl?: Duration.DurationInput | undefined
}

/**
 * Where issued sessions live. Entries are keyed by the SHA-256 of the id, so the store's contents
 * (files on disk, say) do not hold usable ids.
 *
 * @example
 * ```ts
 * import { SessionStore } from "svc-sdk/Auth"
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
    Layer.effect(SessionStore, store.make(ttlOf(options)))

  /**
   * Sessions in memory: lost when the process ends.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerMemory = (options?: SessionStoreOptions): Layer.Layer<SessionStore> =>
    SessionStore.layerKeyValueStore(options).pipe(Layer.provide(KeyValueStore.layerMemory))

  /**
   * Sessions as files in `directory` (one per session): they survive a restart. Needs the
   * platform's `FileSystem` and `Path`, e.g. `NodeContext.layer`.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly layerFileSystem = (
    directory: string,
    options?: SessionStoreOptions
  ): Layer.Layer<SessionStore, PlatformError, FileSystem.FileSystem | Path.Path> =>
    SessionStore.layerKeyValueStore(options).pipe(
      Layer.provide(KeyValueStore.layerFileSystem(directory))
    )

  /**
   * A `SessionValidator` that answers from the store: live ids are valid, others invalid, a store
   * failure makes the validator unavailable.
   *
   * @since 0.1.0
   * @category layers
   */
  static readonly validator: Layer.Layer<SessionValidator, never, SessionStore> = Layer.effect(
    SessionValidator,
    Effect.map(SessionStore, store.validatorOf)
  )
}

const ttlOf = (options: SessionStoreOptions | undefined): Duration.Duration =>
  store.ttlFrom(options?.ttl ?? "24 hours")
