/**
 * Where the demo keeps sessions, on Effect 4: in memory by default (gone when the server stops), as
 * files in a directory (they survive a restart), or in Redis (shared by every instance of the
 * server). Each is the library's `SessionStore`, checked per request by `SessionStore.validator`.
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { LoginThrottle, SessionStore, type SessionStoreService } from "svc-sdk/Auth"
import { REFRESH_LIFETIMES } from "./devices.js"
import { SESSION_LIFETIMES, type SessionsOption } from "./serverOptions.js"

/**
 * The devices' refresh tokens (see `devices.ts`): a second `SessionStore`, beside the one the
 * guards read, so that a refresh token is never a session id.
 */
export class RefreshTokens extends Context.Service<RefreshTokens, SessionStoreService>()(
  "demo/RefreshTokens"
) {}

/** A store of `lifetimes` where `sessions` says; refresh tokens in a directory or keys of their own. */
const storeLayer = (
  sessions: SessionsOption,
  lifetimes: typeof SESSION_LIFETIMES | typeof REFRESH_LIFETIMES,
  refreshTokens: boolean
): Layer.Layer<SessionStore, unknown> =>
  sessions.store === "memory"
    ? SessionStore.layerMemory(lifetimes)
    : sessions.store === "file"
      ? SessionStore.layerFileSystem(
          refreshTokens ? `${sessions.dir}-refresh` : sessions.dir,
          lifetimes
        ).pipe(Layer.provide(NodeServices.layer))
      : SessionStore.layerRedis({
          url: sessions.url,
          ...lifetimes,
          ...(refreshTokens ? { keyPrefix: "svc-sdk:refresh:" } : {})
        })

/**
 * The store, a `SessionValidator` over it, the refresh tokens and the login throttle: in the same
 * Redis with `--store redis` (shared by every instance), else in memory (the throttle) or where the
 * sessions are.
 */
export const sessionsLayer = (sessions: SessionsOption = { store: "memory" }) => {
  const store = storeLayer(sessions, SESSION_LIFETIMES, false)
  const refreshTokens = Layer.effect(
    RefreshTokens,
    Effect.map(SessionStore, (tokens) => tokens)
  ).pipe(Layer.provide(storeLayer(sessions, REFRESH_LIFETIMES, true)))
  const throttle: Layer.Layer<LoginThrottle, unknown> =
    sessions.store === "redis"
      ? LoginThrottle.layerRedis({ url: sessions.url })
      : LoginThrottle.layerMemory()
  return Layer.mergeAll(Layer.provideMerge(SessionStore.validator, store), refreshTokens, throttle)
}
