/**
 * What a program loads on first use, for both lines: the first run imports it, every later run
 * takes it at once. Running `import()` again for a module already loaded resolves it again
 * (through any loader hooks the app has) and waits for a promise, on every call.
 */
import * as Effect from "effect/Effect"

/**
 * `load`'s value, loaded by the program's first run (runs that start meanwhile wait for the same
 * load) and kept for every later one; a load that fails is tried again by the next run.
 */
export const loadOnce = <A>(load: () => Promise<A>): Effect.Effect<A> => {
  let loaded: Effect.Effect<A> | undefined
  let loading: Promise<A> | undefined
  const first = Effect.promise(() => {
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
  })
  return Effect.suspend(() => loaded ?? first)
}
