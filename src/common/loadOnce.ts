/**
 * What a program loads on first use, for both lines: the first run imports it, every later run
 * takes it at once. Running `import()` again for a module already loaded resolves it again
 * (through any loader hooks the app has) and waits for a promise, on every call.
 */
import * as Effect from "effect/Effect"
import { describeCause } from "../core/transport.js"
import { NetworkError } from "./SvcError.js"

/**
 * Why a module could not be loaded (a browser's chunk that did not come: offline, or gone after a
 * deploy): what it was and what the loader said. Each program turns it into its own typed failure.
 */
export class Unloaded {
  constructor(
    readonly message: string,
    readonly cause: unknown
  ) {}
}

/**
 * `load`'s value, loaded by the program's first run (runs that start meanwhile wait for the same
 * load) and kept for every later one; a load that fails fails the run with {@link Unloaded}
 * naming `what` (svc-sdk's …), and is tried again by the next run.
 */
export const loadOnce = <A>(load: () => Promise<A>, what: string): Effect.Effect<A, Unloaded> => {
  let loaded: Effect.Effect<A> | undefined
  let loading: Promise<A> | undefined
  const first = Effect.tryPromise({
    try: () => {
      loading ??= load().then(
        (value) => {
          loaded = Effect.succeed(value)
          return value
        },
        (cause: unknown) => {
          loading = undefined
          throw cause
        }
      )
      return loading
    },
    catch: (cause) =>
      new Unloaded(`svc-sdk's ${what} could not be loaded (${describeCause(cause)})`, cause)
  })
  return Effect.suspend(() => loaded ?? first)
}

/** A module that could not be loaded, as the request's failure: `NETWORK_ERROR`. */
export const unloadedError = (unloaded: Unloaded): NetworkError =>
  new NetworkError({ reason: unloaded.message, cause: unloaded.cause })
