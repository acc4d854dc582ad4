/**
 * Waiting on a caller's `AbortSignal`, for both Effect lines: however many requests share one
 * signal, it carries one `abort` listener of ours.
 *
 * An application often hands one signal to every request of a page or a job. A listener per
 * request made Node warn (`MaxListenersExceededWarning`) past 10 requests in flight, which fetch
 * does not, and each request paid for adding and removing its listener on the signal (a search
 * through the signal's listeners on Node).
 */

interface Waiting {
  readonly callbacks: Set<() => void>
  readonly listener: () => void
}

const waiting = new WeakMap<AbortSignal, Waiting>()

/**
 * Calls `callback` once when `signal` aborts, unless the answer has been called first (it stops
 * waiting); at once when it has aborted already (code the request ran may have aborted it). Each
 * call waits with its own `callback`, a fresh function that does not throw.
 */
export const whenAborted = (signal: AbortSignal, callback: () => void): (() => void) => {
  if (signal.aborted) {
    callback()
    return () => undefined
  }
  let entry = waiting.get(signal)
  if (entry === undefined) {
    const callbacks = new Set<() => void>()
    const listener = () => {
      waiting.delete(signal)
      // a signal made by hand may ignore `once`
      signal.removeEventListener("abort", listener)
      // a callback that stops another's wait (deleted before it is reached) skips it
      for (const call of callbacks) call()
    }
    entry = { callbacks, listener }
    waiting.set(signal, entry)
    signal.addEventListener("abort", listener, { once: true })
  }
  const { callbacks, listener } = entry
  callbacks.add(callback)
  return () => {
    // the last wait gone, the signal keeps no listener of ours
    if (callbacks.delete(callback) && callbacks.size === 0 && waiting.get(signal) === entry) {
      waiting.delete(signal)
      signal.removeEventListener("abort", listener)
    }
  }
}
