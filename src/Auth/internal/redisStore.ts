import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { connectedRedisStore, redisSettings as settingsOf } from "../../common/sessionStore.js"
import type { RedisSettings } from "../../core/sessionStore.js"
import type { RedisStoreOptions, SessionStoreService } from "../SessionStore.js"
import type { SessionStoreError } from "../SessionStoreError.js"
import { storeLine } from "./sessionStore.js"

/** Bad options throw here, where the layer is made. */
export const redisSettings = (options: RedisStoreOptions): RedisSettings =>
  settingsOf(storeLine.durationMillis, options)

/** The Redis store over one connection for the layer's lifetime (`common/sessionStore.ts`). */
export const make = (
  settings: RedisSettings
): Effect.Effect<SessionStoreService, SessionStoreError, Scope.Scope> =>
  connectedRedisStore(storeLine, settings)
