/**
 * Where the demo keeps sessions, on Effect 4: in memory by default (gone when the server stops), as
 * files in a directory (they survive a restart), or in Redis (shared by every instance of the
 * server). Each is the library's `SessionStore`, checked per request by `SessionStore.validator`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Layer from "effect/Layer"
import { LoginThrottle, SessionStore } from "svc-sdk/Auth"
import { SESSION_LIFETIMES, type SessionsOption } from "./serverOptions.js"

/**
 * The store, a `SessionValidator` over it, and the login throttle: in the same Redis with
 * `--store redis` (shared by every instance), else in memory.
 */
export const sessionsLayer = (sessions: SessionsOption = { store: "memory" }) => {
  const store: Layer.Layer<SessionStore, unknown> =
    sessions.store === "memory"
      ? SessionStore.layerMemory(SESSION_LIFETIMES)
      : sessions.store === "file"
        ? SessionStore.layerFileSystem(sessions.dir, SESSION_LIFETIMES).pipe(
            Layer.provide(NodeServices.layer)
          )
        : SessionStore.layerRedis({ url: sessions.url, ...SESSION_LIFETIMES })
  const throttle: Layer.Layer<LoginThrottle, unknown> =
    sessions.store === "redis"
      ? LoginThrottle.layerRedis({ url: sessions.url })
      : LoginThrottle.layerMemory()
  return Layer.merge(Layer.provideMerge(SessionStore.validator, store), throttle)
}
