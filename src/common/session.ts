/**
 * Where a request's session id comes from: `setSessionId`, then `config.sessionId`, then
 * `config.getSessionId()`, then storage. Ids stay `Redacted` until the header is written.
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { errorOf } from "../core/describe.js"
import { checkSessionId } from "../core/session.js"
import {
  clearSessionId,
  findSessionId,
  isValidSessionId,
  saveSessionId
} from "../Storage/SessionKeys.js"

export { checkSessionId }

import type { StorageAdapter } from "../core/storage.js"

/** The session sources of one client. */
export interface SessionSources {
  readonly sessionId?: string | undefined
  readonly getSessionId?:
    | (() => string | null | undefined | Promise<string | null | undefined>)
    | undefined
  readonly storage?: StorageAdapter | undefined
}

/** The session state of one client, shared by its Effect API and its facade. */
export interface SessionState {
  readonly sources: SessionSources
  /** Reports failures of `getSessionId()` and of storage; never throws. */
  readonly report: (error: Error) => void
  /** The value given to `setSessionId`. */
  manual: Redacted.Redacted<string> | undefined
  /** `clearSession()` was called since the last `setSessionId`: `config.sessionId` is ignored. */
  cleared: boolean
  /** The storage, once resolved (`null`: none). */
  storage: StorageAdapter | null | undefined
  pendingStorage: Promise<StorageAdapter | null> | undefined
  /** The refresh under way, which every request that got a 401 for the session waits for. */
  refreshing: RefreshFlight | undefined
}

/**
 * One run of `refreshSession` (`refresh.ts`): its answer once it is in — the new id, or `null`
 * when the session could not be renewed — and the requests waiting for it.
 */
export interface RefreshFlight {
  outcome: Redacted.Redacted<string> | null | undefined
  /** The application set or cleared the session since it started: its answer applies to nothing. */
  superseded: boolean
  readonly waiters: Set<(outcome: Redacted.Redacted<string> | null) => void>
}

export const makeSessionState = (
  sources: SessionSources,
  report: (error: Error) => void
): SessionState => {
  // it may look for storage: its detection starts loading now (a failure is met on first use)
  if (sources.storage === undefined) loadDetector().catch(() => undefined)
  return {
    sources,
    report,
    manual: undefined,
    cleared: false,
    storage: sources.storage ?? undefined,
    pendingStorage: undefined,
    refreshing: undefined
  }
}

/**
 * A failure reported to `onError` and replaced by `fallback`: storage and `getSessionId` never fail
 * a request. (`matchEffect`, written the same on both Effect lines.)
 */
const orReport =
  <A>(state: SessionState, fallback: A) =>
  <B>(effect: Effect.Effect<B, Error>): Effect.Effect<A | B> =>
    Effect.matchEffect(effect, {
      onFailure: (error) =>
        Effect.as(
          Effect.sync(() => state.report(error)),
          fallback
        ),
      onSuccess: (value) => Effect.succeed(value)
    })

const asError = (cause: unknown, context: string): Error => {
  const error = errorOf(cause)
  return error === cause ? error : new Error(`${context}: ${error.message}`)
}

/**
 * `detectStorage` (Storage/Detect.ts), loaded on demand: a browser bundle keeps the storages a page
 * may have (web storage, cookies, React Native's) out of what it loads at once. A client that may
 * look for storage starts the load when it is made (`makeSessionState`); a lookup that needs it
 * waits for it, under the lookup's timeout; a load that failed is tried again by the next.
 */
let detector: Promise<typeof import("../Storage/Detect.js")> | undefined
const loadDetector = () => {
  detector ??= import("../Storage/Detect.js").catch((cause: unknown) => {
    detector = undefined
    throw cause
  })
  return detector
}

/**
 * `config.storage`, else what `detectStorage()` finds, resolved once. While its code cannot be
 * loaded (reported), there is no storage, and the next lookup tries again.
 */
const storageOf = (state: SessionState): Effect.Effect<StorageAdapter | null> => {
  if (state.storage !== undefined) return Effect.succeed(state.storage)
  return Effect.promise(() => {
    state.pendingStorage ??= loadDetector().then(
      // detectStorage never rejects
      async (loaded) => {
        const found = (await loaded.detectStorage()) ?? null
        state.storage = found
        return found
      },
      (cause: unknown) => {
        state.pendingStorage = undefined
        state.report(asError(cause, "storage detection failed"))
        return null
      }
    )
    return state.pendingStorage
  })
}

const fromCallback = (
  state: SessionState
): Effect.Effect<Redacted.Redacted<string> | undefined> => {
  const callback = state.sources.getSessionId
  if (callback === undefined) return Effect.succeed(undefined)
  return Effect.tryPromise({
    try: async () => callback(),
    catch: (cause) => asError(cause, "getSessionId failed")
  }).pipe(
    Effect.flatMap((value) => {
      if (value === null || value === undefined) return Effect.succeed(undefined)
      if (isValidSessionId(value)) return Effect.succeed(Redacted.make(value))
      // the value stays out of the message: it may be most of a real id
      return Effect.fail(
        new TypeError(
          "getSessionId returned a value that is not a session id (1 to 512 visible ASCII characters)"
        )
      )
    }),
    orReport(state, undefined)
  )
}

const fromStorage = (state: SessionState): Effect.Effect<Redacted.Redacted<string> | undefined> =>
  Effect.flatMap(storageOf(state), (storage) =>
    storage === null
      ? Effect.succeed(undefined)
      : Effect.tryPromise({
          try: () => findSessionId(storage),
          catch: (cause) => asError(cause, "reading the session from storage failed")
        }).pipe(
          Effect.map((id) => (id === undefined ? undefined : Redacted.make(id))),
          orReport(state, undefined)
        )
  )

/**
 * The session id for the next request when it is known without running the application's code
 * (`setSessionId`, `config.sessionId`, or no source at all); `undefined` when it must be looked up
 * (`getSessionId`, storage).
 */
export const knownSession = (
  state: SessionState
): { readonly id: Redacted.Redacted<string> | undefined } | undefined => {
  if (state.manual !== undefined) return { id: state.manual }
  const configured = state.sources.sessionId
  if (!state.cleared && configured !== undefined) return { id: Redacted.make(configured) }
  if (state.sources.getSessionId === undefined && state.storage === null) return NO_SESSION
  return undefined
}

const NO_SESSION = { id: undefined }

/** The session id for the next request, if any. Never fails: failures are reported. */
export const resolveSession = (
  state: SessionState
): Effect.Effect<Redacted.Redacted<string> | undefined> =>
  Effect.suspend(() => {
    const known = knownSession(state)
    if (known !== undefined) return Effect.succeed(known.id)
    return Effect.flatMap(fromCallback(state), (id) =>
      id === undefined ? fromStorage(state) : Effect.succeed(id)
    )
  })

/**
 * The application changed the session (`setSessionId`, `clearSession`): the refresh under way was
 * renewing the session it replaced, so its answer, a new id or none, changes nothing (`refresh.ts`),
 * and a 401 for the new session may start a refresh of its own.
 */
export const supersedeRefresh = (state: SessionState): void => {
  const flight = state.refreshing
  if (flight === undefined) return
  flight.superseded = true
  state.refreshing = undefined
}

/** Remembers an id at once, before any storage write. */
export const rememberSession = (state: SessionState, id: Redacted.Redacted<string>): void => {
  state.manual = id
  state.cleared = false
}

/** Forgets the session at once, before any storage write. */
export const forgetSession = (state: SessionState): void => {
  state.manual = undefined
  state.cleared = true
}

/** Persists an id when storage exists. Never fails: failures are reported. */
export const persistSession = (
  state: SessionState,
  id: Redacted.Redacted<string>
): Effect.Effect<void> =>
  Effect.flatMap(storageOf(state), (storage) =>
    storage === null
      ? Effect.void
      : Effect.tryPromise({
          try: () => saveSessionId(storage, Redacted.value(id)),
          catch: (cause) => asError(cause, "saving the session to storage failed")
        }).pipe(orReport(state, undefined))
  )

/** Removes the session from storage when storage exists. Never fails: failures are reported. */
export const unpersistSession = (state: SessionState): Effect.Effect<void> =>
  Effect.flatMap(storageOf(state), (storage) =>
    storage === null
      ? Effect.void
      : Effect.tryPromise({
          try: () => clearSessionId(storage),
          catch: (cause) => asError(cause, "removing the session from storage failed")
        }).pipe(orReport(state, undefined))
  )
