import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as store from "../../../common/sessionStore.js"
import { lifetimesFrom as checkLifetimes, type Lifetimes } from "../../../core/sessionStore.js"
import type { SessionData } from "../SessionData.js"
import type { SessionStoreOptions, SessionStoreService } from "../SessionStore.js"
import { line as authLine } from "./line.js"

export const lifetimesFrom = (options: SessionStoreOptions | undefined): Lifetimes =>
  checkLifetimes(authLine.durationMillis, options)

/** What the shared stores need of this line. */
export const storeLine: store.StoreLine<SessionData> = store.storeLineOf(authLine)

/** The shared store over the application's `KeyValueStore` (see `common/sessionStore.ts`). */
export const make = (defaults: Lifetimes) =>
  Effect.gen(function* () {
    const kv = yield* KeyValueStore.KeyValueStore
    const lock = yield* Effect.makeSemaphore(1)
    const service: SessionStoreService = store.keyValueStore(
      storeLine,
      {
        get: (key) => Effect.map(kv.get(key), Option.getOrUndefined),
        set: kv.set,
        // removing what is already gone is not a failure
        remove: (key) =>
          kv.remove(key).pipe(
            Effect.catchIf(
              (error) => error._tag === "SystemError" && error.reason === "NotFound",
              () => Effect.void
            )
          )
      },
      lock.withPermits(1),
      defaults
    )
    return service
  })

export const validatorOf = store.validatorOf
