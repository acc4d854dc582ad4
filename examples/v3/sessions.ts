/**
 * Where the demo keeps sessions: in memory by default (gone when the server stops), as files in a
 * directory (they survive a restart), or in Redis (shared by every instance of the server). Each is
 * the library's `SessionStore`, checked per request by `SessionStore.validator`.
 */
import { NodeContext } from "@effect/platform-node"
import * as Layer from "effect/Layer"
import { SessionStore } from "svc-sdk/v3/Auth"

/** Where sessions live. */
export type SessionsOption =
  | { readonly store: "memory" }
  | { readonly store: "file"; readonly dir: string }
  | { readonly store: "redis"; readonly url: string }

/** The store and a `SessionValidator` over it. */
export const sessionsLayer = (sessions: SessionsOption = { store: "memory" }) => {
  const options = { ttl: "8 hours", idleTimeout: "1 hour" } as const
  const store: Layer.Layer<SessionStore, unknown> =
    sessions.store === "memory"
      ? SessionStore.layerMemory(options)
      : sessions.store === "file"
        ? SessionStore.layerFileSystem(sessions.dir, options).pipe(Layer.provide(NodeContext.layer))
        : SessionStore.layerRedis({ url: sessions.url, ...options })
  return Layer.provideMerge(SessionStore.validator, store)
}
