/**
 * The one exchange: a transport's `Send` as an Effect, bounded by the try's deadline on the fiber's
 * `Clock` and aborted when the fiber is interrupted. Every transport (undici, fetch, the
 * `HttpClient` adapter) runs its exchanges here, on both lines: this is the pipeline's one time
 * limit for a try.
 */

import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { MAX_TIMEOUT_MILLIS } from "../core/options.js"
import {
  type Abort,
  closeAlso,
  type Outcome,
  type Send,
  type TransportFailure,
  type TransportRequest,
  type TransportResponse,
  timedOut
} from "../core/transport.js"
import type { ClientDialect } from "./dialect.js"

/**
 * Sends `request` with `send`. Past `request.deadline` (a time of the fiber's `Clock`), the exchange
 * is aborted and fails with `TimedOut`; every redirect hop of a try carries the try's deadline.
 * Interrupting the fiber aborts the exchange (the callback's canceler) — unless `interruptible` is
 * `false`: the facade says so for a request that nothing but its own deadline can end (no signal, no
 * `totalTimeout`), which then registers no interruption handler. On Effect 3 that handler costs a
 * request about 13 µs of client CPU and a fifth of the facade's throughput (measured). A request
 * whose deadline has passed is not sent: `unsent` is told so.
 */
export const exchange = (
  line: ClientDialect,
  send: Send,
  request: TransportRequest,
  interruptible = true,
  unsent?: () => void
): Effect.Effect<TransportResponse, TransportFailure> =>
  Effect.clockWith((clock) =>
    line.callback<TransportResponse, TransportFailure>((resume) => {
      let settled = false
      let cancelTimer: (() => void) | undefined
      let cancelIdle: (() => void) | undefined
      let abort: Abort | undefined
      const settle = (outcome: Outcome) => {
        if (settled) return
        settled = true
        cancelTimer?.()
        cancelIdle?.()
        // a streamed body can be closed from the moment it answers (before the fiber resumes):
        // cancelled if nothing reads it, and the exchange aborted (what reads it may never end)
        if (outcome._tag === "Response" && request.streamed !== undefined) {
          const stream = outcome.response.stream
          if (stream !== undefined)
            closeAlso(request.streamed, () => {
              cancelQuietly(stream)
              abort?.(new Error("Request interrupted"))
            })
        }
        resume(
          outcome._tag === "Response" ? Effect.succeed(outcome.response) : Effect.fail(outcome)
        )
      }
      const timeOut = (failure: TransportFailure) => {
        settle(failure)
        abort?.(new Error("Request timed out"))
      }
      const deadline = request.deadline
      if (deadline !== undefined) {
        const left = deadline - line.now(clock)
        if (left <= 0) {
          unsent?.()
          return resume(Effect.fail(timedOut))
        }
        cancelTimer = startTimer(line, clock, left, () => timeOut(timedOut))
      }
      const idleMillis = request.idleMillis
      const watch = (again?: boolean): void => {
        const due = line.now(clock) + idleMillis
        cancelIdle = startTimer(line, clock, idleMillis, () =>
          // come well past its time, the client held the event loop itself (a slow progress
          // callback, a decoder): bytes may wait unread, so one more wait, once per arrival
          again && line.now(clock) - due > BUSY_MILLIS
            ? watch()
            : timeOut({ _tag: "TimedOut", idleMillis })
        )
      }
      // from the headers on, each arrival gives the body `idleMillis` more, until its last or while
      // the client holds it back (once answered, a streamed body's reader watches it)
      const sent =
        idleMillis > 0
          ? {
              ...request,
              arrived: (held?: boolean) => {
                if (settled) return
                cancelIdle?.()
                cancelIdle = undefined
                if (!held) watch(true)
              }
            }
          : request
      abort = send(sent, settle)
      if (settled || !interruptible) return
      return Effect.sync(() => {
        settled = true
        cancelTimer?.()
        cancelIdle?.()
        abort?.(new Error("Request interrupted"))
      })
    })
  )

/**
 * How late an idle timer may come before its lateness is taken for the client's own work holding
 * the event loop, not for the server's silence.
 */
const BUSY_MILLIS = 25

/** Cancels `stream`, unless something reads it (then what reads it closes it). */
export const cancelQuietly = (stream: ReadableStream<unknown>): void => {
  if (!stream.locked) stream.cancel().catch(() => undefined)
}

/** Effect's live `Clock`, the one a fiber has unless something (`TestClock`) replaced it. */
const liveClock = /*#__PURE__*/ Effect.runSync(Effect.clockWith(Effect.succeed))

/**
 * Calls `onTime` after `millis` on `clock`; returns how to cancel. On Effect's live `Clock` that is
 * the plain timer its own `sleep` sets (a sleep on a fiber of its own would add ~9 µs to every try,
 * and Effect's own timeout ~22 µs: measured); on any other `Clock` it is that Clock's `sleep`, on a
 * fiber of its own. A wait longer than a timer can hold (a server's `retry:`, which nothing checks)
 * waits that long: `setTimeout` would fire at once, and Effect 3's `sleep` never.
 */
export const startTimer = (
  line: ClientDialect,
  clock: Clock.Clock,
  wanted: number,
  onTime: () => void
): (() => void) => {
  const millis = Math.min(wanted, MAX_TIMEOUT_MILLIS)
  if (clock === liveClock) {
    const timer = setTimeout(onTime, millis)
    return () => clearTimeout(timer)
  }
  const sleeping = Effect.runFork(clock.sleep(Duration.millis(millis)))
  sleeping.addObserver((exit) => {
    if (Exit.isSuccess(exit)) onTime()
  })
  return () => line.interrupt(sleeping)
}

/**
 * How the program reaches the network: one exchange (a redirect hop) as an Effect;
 * `interruptible: false` when nothing can interrupt the fiber but the request itself (see
 * {@link exchange}).
 */
export type Transport = (
  request: TransportRequest,
  interruptible: boolean
) => Effect.Effect<TransportResponse, TransportFailure>

/** A plain transport (undici, fetch) as the pipeline uses it. */
export const fromSend =
  (line: ClientDialect, send: Send): Transport =>
  (request, interruptible) =>
    exchange(line, send, request, interruptible)
