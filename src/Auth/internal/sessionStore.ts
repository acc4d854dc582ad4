import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import { line } from "../../Client/internal/line.js"
import * as store from "../../common/sessionStore.js"
import { lifetimesFrom as checkLifetimes, type Lifetimes } from "../../core/sessionStore.js"
import { SessionData } from "../SessionData.js"
import type { SessionStoreOptions, SessionStoreService } from "../SessionStore.js"

export const lifetimesFrom = (options: SessionStoreOptions | undefined): Lifetimes =>
  checkLifetimes(line.durationMillis, options)

const decodeSession = Schema.decodeUnknownOption(SessionData)

/** What the shared stores need of this line. */
export const storeLine: store.StoreLine<SessionData> = {
  durationMillis: line.durationMillis,
  decodeSession: (value) => Option.getOrUndefined(decodeSession(value))
}

/** The shared store over the application's `KeyValueStore` (see `common/sessionStore.ts`). */
export const make = (defaults: Lifetimes) =>
  Effect.gen(function* () {
    const kv = yield* KeyValueStore.KeyValueStore
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
