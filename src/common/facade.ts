/**
 * The Promise facade, for both lines: runs the Effect API's programs (`service.ts`) over the
 * runtime's transport, on the line's facade runtime (tracer off), and folds failures into
 * `ApiResponse`. It never throws from a request and never rejects.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { defaultTransport } from "#transport"
import type { ApiFailure, ApiResponse, ApiSuccess } from "../core/ApiResponse.js"
import { errorOf } from "../core/describe.js"
import type { StreamedBody } from "../core/transport.js"
import { type CallEnder, type ClientConfig, closeEnder, foldError, makeState } from "./client.js"
import type { ClientDialect, RunningFiber } from "./dialect.js"
import { fromSend } from "./exchange.js"
import type { SvcError } from "./SvcError.js"
import { type Face, fromState, type Surface, transportFor } from "./service.js"

const describeDefect = (line: ClientDialect, cause: Cause.Cause<never>): Error =>
  line.isInterruptedOnly(cause) ? new Error("Request interrupted") : errorOf(Cause.squash(cause))

/**
 * A call's `CallEnder`, made by a class. Written as an object literal with a getter over the call's
 * state, each call's ender got a hidden class of its own, which V8 makes in the old generation: it
 * kept the getter, and through it the whole call (its fiber, request and response), alive until a
 * full collection, and young-generation collections copied and promoted every call (Effect 3
 * facade GET on loopback: about 2.5 KB promoted per request, a sixth of its CPU in collection).
 */
class Ender implements CallEnder {
  ended = false
  readonly disarms = Array.of<() => void>()
  constructor(readonly end: (failure: SvcError) => void) {}
}

/**
 * Runs a request program to an `ApiResponse`; resolves in every case. The program gets the call's
 * `CallEnder`: when its signal aborts or its total limit passes, it interrupts the call's fiber at
 * once and answers that failure (reported) after the turn, so that the program forks nothing to
 * be ended.
 */
const run = <A>(
  line: ClientDialect,
  report: (error: Error) => void,
  program: (ender: CallEnder) => Effect.Effect<ApiSuccess<A>, SvcError>
): Promise<ApiResponse<A>> =>
  new Promise((resolve) => {
    let fiber: RunningFiber<ApiSuccess<A>, SvcError>
    const ender = new Ender((failure) => {
      if (ender.ended) return
      ender.ended = true
      // stopped at its next step (code of the call that aborted it goes no further)...
      line.interrupt(fiber)
      // ...and answered after the turn that ended it (`controller.abort()` returns before
      // `onError` runs), as when the call ends itself
      queueMicrotask(() => {
        report(failure)
        resolve(foldError(failure))
      })
    })
    const unexpected = (cause: unknown): ApiFailure => {
      const error = errorOf(cause)
      report(error)
      return {
        success: false,
        status: 0,
        error: error.message || "Request failed",
        code: "NETWORK_ERROR"
      }
    }
    const settle = (exit: Exit.Exit<ApiSuccess<A>, SvcError>): ApiResponse<A> => {
      if (Exit.isSuccess(exit)) return exit.value
      const failure = line.failureOf(exit.cause)
      if (failure !== undefined) return foldError(failure)
      return unexpected(describeDefect(line, exit.cause as Cause.Cause<never>))
    }
    // the fiber's own observer settles the promise: no promise of Effect's in between
    try {
      fiber = line.runFork(program(ender))
      fiber.addObserver((exit) => {
        closeEnder(ender)
        if (ender.ended) return
        try {
          resolve(settle(exit))
        } catch (cause) {
          resolve(unexpected(cause))
        }
      })
    } catch (cause) {
      resolve(unexpected(cause))
    }
  })

/** Runs a program that never fails; a defect goes to `onError`. */
const runVoid = (
  line: ClientDialect,
  report: (error: Error) => void,
  program: Effect.Effect<void>
): Promise<void> => line.runPromise(program).catch((cause: unknown) => report(errorOf(cause)))

const facades = new WeakSet<object>()

/** Records `value` as a facade, for `instanceof SvcClient`. */
export const mark = <A extends object>(value: A): A => {
  facades.add(value)
  return value
}

export const isFacade = (value: unknown): boolean =>
  typeof value === "object" && value !== null && facades.has(value)

/**
 * Runs a `stream` or `sse` program: a body that came to a call that does not succeed (however it
 * ended: its signal, its limit, a failure after the answer) is closed.
 */
const runStreamed = <A>(
  line: ClientDialect,
  report: (error: Error) => void,
  program: (ender: CallEnder, streamed: StreamedBody) => Effect.Effect<ApiSuccess<A>, SvcError>
): Promise<ApiResponse<A>> => {
  const streamed: StreamedBody = { close: undefined }
  return run(line, report, (ender) => program(ender, streamed)).then((response) => {
    if (!response.success) streamed.close?.()
    return response
  })
}

/** The facade's face: every method runs its program, resolving whatever happens. */
const promiseFace = (line: ClientDialect, report: (error: Error) => void): Face<"promise"> => ({
  request: (program) => run(line, report, program),
  stream: (program) => runStreamed(line, report, program),
  sse: (program) =>
    runStreamed(line, report, program).then((response) =>
      response.success ? { ...response, data: response.data.eventStream() } : response
    ),
  sessionId: (program) =>
    line.runPromise(program).then(
      (id) => (Option.isSome(id) ? Redacted.value(id.value) : null),
      () => null
    ),
  hasSession: (program) => line.runPromise(program).catch(() => false),
  changeThen: (change, then) => runVoid(line, report, then(change())),
  change: (change) => change(),
  refresh: (refreshSession, client, failed) =>
    Effect.tryPromise({
      try: async () =>
        (refreshSession as (failed: ApiFailure, client: unknown) => unknown)(failed, mark(client)),
      catch: (cause) => cause
    })
})

/** The facade over a fresh client: `config.fetch`, else the runtime's transport. */
export const make = (
  line: ClientDialect,
  baseUrl: string,
  config?: ClientConfig
): Surface<"promise"> => {
  const state = makeState(line, undefined, baseUrl, config)
  const transport = transportFor(line, config, () => fromSend(line, defaultTransport))
  return mark(fromState(state, transport, promiseFace(line, state.report)))
}
