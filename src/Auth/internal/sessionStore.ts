import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as Semaphore from "effect/Semaphore"
import * as store from "../../common/sessionStore.js"
import { lifetimesFrom as checkLifetimes, type Lifetimes } from "../../core/sessionStore.js"
import type { SessionData } from "../SessionData.js"
import type { SessionStoreOptions, SessionStoreService } from "../SessionStore.js"
import { line as authLine } from "./line.js"

/**
 * `effect/persistence`'s `KeyValueStore` service, by its key: the same service, without loading
 * `effect/persistence` (and the SQL modules it brings) when `svc-sdk/Auth` is imported.
 */
const KeyValueStoreService = Context.Service<KeyValueStore.KeyValueStore>(
  "effect/persistence/KeyValueStore"
)

/** One of `effect/persistence`'s `KeyValueStore` layers, loaded when the layer is built. */
export const keyValueLayer = <E, R>(
  pick: (module: typeof KeyValueStore) => Layer.Layer<KeyValueStore.KeyValueStore, E, R>
): Layer.Layer<KeyValueStore.KeyValueStore, E, R> =>
  Layer.unwrap(
    Effect.map(
      Effect.promise(() => import("effect/persistence/KeyValueStore")),
      pick
    )
  )

export const lifetimesFrom = (options: SessionStoreOptions | undefined): Lifetimes =>
  checkLifetimes(authLine.durationMillis, options)

/** What the shared stores need of this line. */
export const storeLine: store.StoreLine<SessionData> = store.storeLineOf(authLine)

/** The shared store over the application's `KeyValueStore` (see `common/sessionStore.ts`). */
export const make = (defaults: Lifetimes) =>
  Effect.gen(function* () {
    const kv = yield* KeyValueStoreService
    const lock = yield* Semaphore.make(1)
    const service: SessionStoreService = store.keyValueStore(
      storeLine,
      // removing what is already gone succeeds on Effect 4's stores
      { get: kv.get, set: kv.set, remove: kv.remove },
      lock.withPermits(1),
      defaults
    )
    return service
  })

export const validatorOf = store.validatorOf
