/**
 * Where the demo keeps sessions: in memory by default (gone when the server stops), or as files
 * in a directory (they survive a restart). Both are the library's `SessionStore` over
 * `@effect/platform`'s `KeyValueStore`, checked per request by `SessionStore.validator`.
 */
import { NodeContext } from "@effect/platform-node"
import * as Layer from "effect/Layer"
import { SessionStore } from "svc-sdk/Auth"

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
