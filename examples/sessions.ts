/**
 * Where the demo keeps sessions: in memory by default (gone when the server stops), or as files
 * in a directory (they survive a restart). Both are the library's `SessionStore` over
 * `@effect/platform`'s `KeyValueStore`, checked per request by `SessionStore.validator`.
 */
import { NodeContext } from "@effect/platform-node"
import * as Layer from "effect/Layer"
// `svc-sdk/Auth` does not re-export `SessionStore` yet, so the demo reaches for its module.
import { SessionStore } from "../src/Auth/SessionStore.js"

export { SessionStore }

/** The store (memory, or files under `directory`) and a `SessionValidator` over it. */
export const sessionsLayer = (directory?: string) => {
  const store =
    directory === undefined
      ? SessionStore.layerMemory({ ttl: "8 hours" })
      : SessionStore.layerFileSystem(directory, { ttl: "8 hours" }).pipe(
          Layer.provide(NodeContext.layer)
        )
  return Layer.provideMerge(SessionStore.validator, store)
}
