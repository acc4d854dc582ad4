/**
 * The transport contract: a transport sends one prepared request and hands back its status,
 * headers and body bytes. Everything else — URL, headers, session, interceptors, redirects, retry,
 * decoding, envelope — is the one pipeline of `client.ts`, the same over every transport.
 *
 * What a try may take is an argument, not a side channel: `deadline` and `maxResponseBytes` are
 * enforced by the transport itself (the deadline through {@link exchange}, on the fiber's `Clock`),
 * and interrupting the Effect aborts the exchange.
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"

/** One request, ready to go. */
export interface TransportRequest {
  readonly method: string
  /** An absolute http(s) URL. */
  readonly url: string
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  /** JSON and text bodies are strings; binary and multipart bodies are bytes. */
  readonly body: string | Uint8Array | undefined
  /**
   * When the try this request belongs to must end, as a time of the fiber's `Clock` in
   * milliseconds; `undefined`: no limit. Every redirect hop of a try has the same deadline.
   */
  readonly deadline: number | undefined
  /** The longest body accepted, after decompression; `Infinity`: no limit. */
  readonly maxResponseBytes: number
  /**
   * Whether the pipeline follows redirects: then a redirect ({@link isFollowedRedirect}) is
   * answered on its headers alone, its body discarded unread (never waited for, never counted
   * against `maxResponseBytes`), as fetch does.
   */
  readonly followRedirects: boolean
  /**
   * Whether the transport may let its runtime follow a redirect it cannot expose (a browser's
   * fetch hides a redirect's target). The pipeline allows it only for requests that carry no
   * credentials of the client's.
   */
  readonly followHiddenRedirects: boolean
  /**
   * Whether trace context (`traceparent`, `b3`) may go with the request: only to the base URL's
   * origin, so that other origins learn nothing and browsers need no extra CORS preflight.
   */
  readonly propagateTrace: boolean
  /** Headers whose values never go into a span or a log (the session header). */
  readonly secretHeaders: ReadonlyArray<string>
}

/** What came back. */
export interface TransportResponse {
  readonly status: number
  /** The reason phrase the server sent, or `""`. */
  readonly statusText: string
  /** Lower-case names; repeated headers joined with `, ` (`set-cookie` with `\n`). */
  readonly headers: Readonly<Record<string, string>>
  /** The body, decompressed; empty for a redirect the pipeline follows. */
  readonly body: Uint8Array
  /**
   * The runtime answered a redirect whose target it hides (a browser's fetch in `manual` mode):
   * `status` is `0` and there is nothing to read.
   */
  readonly hiddenRedirect: boolean
}

/** Why no response came. */
export type TransportFailure =
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "TooLarge"; readonly status: number }
  | { readonly _tag: "Failed"; readonly reason: string; readonly cause?: unknown }

/** Statuses whose `Location` the pipeline follows. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

/** Whether a response is a redirect the pipeline follows (when it follows redirects at all). */
export const isFollowedRedirect = (
  status: number,
  headers: Readonly<Record<string, string>>
): boolean => REDIRECT_STATUSES.has(status) && Boolean(headers.location)

/** The answer to a followed redirect: its status and headers, no body. */
export const redirectAnswer = (
  status: number,
  statusText: string,
  headers: Readonly<Record<string, string>>
): TransportResponse => ({ status, statusText, headers, body: EMPTY, hiddenRedirect: false })

const EMPTY = new Uint8Array(0)

/** Sends one request; interruption aborts it. */
export type Transport = (
  request: TransportRequest
) => Effect.Effect<TransportResponse, TransportFailure>

/**
 * How a transport starts an exchange: it calls `settle` once with the outcome and returns how to
 * abort the exchange.
 */
export type Start<A> = (settle: (outcome: Effect.Effect<A, TransportFailure>) => void) => Abort

/** Aborts an exchange (the deadline passed, or the fiber waiting on it was interrupted). */
export type Abort = (reason: Error) => void

/**
 * An exchange as an Effect, bounded by `deadline` (a time on the fiber's `Clock`, `undefined`: no
 * limit): past it, the exchange is aborted and fails with `TimedOut`. Interrupting the fiber that
 * waits on it aborts it too. This is the pipeline's one time limit for a try: every transport runs
 * its exchanges here, so every hop of a try shares the try's deadline, on whatever `Clock` the
 * fiber has (`TestClock` in tests).
 */
export const exchange = <A>(start: Start<A>, deadline: number | undefined) =>
  Effect.clockWith((clock) =>
    Effect.async<A, TransportFailure>((resume) => {
      let settled = false
      let cancelTimer: (() => void) | undefined
      let abort: Abort | undefined
      const settle = (outcome: Effect.Effect<A, TransportFailure>) => {
        if (settled) return
        settled = true
        cancelTimer?.()
        resume(outcome)
      }
      if (deadline !== undefined) {
        const left = deadline - clock.unsafeCurrentTimeMillis()
        if (left <= 0) return resume(Effect.fail(timedOut))
        cancelTimer = startTimer(clock, left, () => {
          settle(Effect.fail(timedOut))
          abort?.(new Error("Request timed out"))
        })
      }
      abort = start(settle)
      if (settled) return
      return Effect.sync(() => {
        settled = true
        cancelTimer?.()
        abort?.(new Error("Request interrupted"))
      })
    })
  )

/** Effect's live `Clock`, the one a fiber has unless something (`TestClock`) replaced it. */
const liveClock = /*#__PURE__*/ Effect.runSync(Effect.clock)

/**
 * Calls `onTime` after `millis` on `clock`; returns how to cancel. On Effect's live `Clock` that is
 * the plain timer its own `sleep` sets (a sleep on a fiber of its own would add ~9 µs to every try:
 * measured); on any other `Clock` it is that Clock's `sleep`, on a fiber of its own.
 */
const startTimer = (clock: Clock.Clock, millis: number, onTime: () => void): (() => void) => {
  if (clock === liveClock) {
    const timer = setTimeout(onTime, millis)
    return () => clearTimeout(timer)
  }
  const sleeping = Effect.runFork(clock.sleep(Duration.millis(millis)))
  sleeping.addObserver((exit) => {
    if (Exit.isSuccess(exit)) onTime()
  })
  return () => sleeping.unsafeInterruptAsFork(FiberId.none)
}

export const timedOut: TransportFailure = { _tag: "TimedOut" }
export const tooLarge = (status: number): TransportFailure => ({ _tag: "TooLarge", status })
export const failed = (reason: string, cause?: unknown): TransportFailure =>
  cause === undefined ? { _tag: "Failed", reason } : { _tag: "Failed", reason, cause }

/** A short description of a transport error: its code (`ECONNREFUSED`) or message. */
export const describeCause = (cause: unknown): string => {
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code
    const inner = (cause as Error & { cause?: unknown }).cause
    if (typeof code === "string") return code
    if (inner !== undefined && inner !== cause) return describeCause(inner)
    return cause.message || cause.name
  }
  return String(cause)
}

/**
 * Adds a response header to `headers` (lower-case `name`): a repeated header is joined with `, `
 * (`set-cookie` with `\n`). Every name is an own property, `constructor` and `__proto__` too,
 * never one that `Object.prototype` answers for.
 */
export const addHeader = (headers: Record<string, string>, name: string, value: string): void => {
  const previous = headers[name]
  if (previous !== undefined && Object.hasOwn(headers, name)) {
    headers[name] = `${previous}${name === "set-cookie" ? "\n" : ", "}${value}`
  } else if (name === "__proto__") {
    Object.defineProperty(headers, name, {
      value,
      writable: true,
      enumerable: true,
      configurable: true
    })
  } else {
    headers[name] = value
  }
}

/** Response headers from a `Headers` object (fetch), lower-case, `set-cookie` kept apart. */
export const headersFromFetch = (headers: Headers): Record<string, string> => {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    if (name !== "set-cookie") addHeader(out, name, value)
  })
  const cookies = (headers as Headers & { getSetCookie?: () => Array<string> }).getSetCookie?.()
  if (cookies !== undefined && cookies.length > 0) out["set-cookie"] = cookies.join("\n")
  return out
}

/** Collects a body stream, failing with `TooLarge` past `limit` bytes. */
export const readStream = async (
  stream: ReadableStream<Uint8Array> | null,
  limit: number
): Promise<Uint8Array | "TooLarge"> => {
  if (stream === null) return new Uint8Array(0)
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      return "TooLarge"
    }
    chunks.push(value)
  }
  return concat(chunks, size)
}

/** One array of the chunks' bytes. */
export const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]!
  const out = new Uint8Array(size)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}
