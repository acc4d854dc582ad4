/**
 * The Promise facade: runs the Effect API's programs (`service.ts`) over the runtime's transport
 * and folds failures into `ApiResponse`. It never throws from a request and never rejects.
 */
import * as Cause from "effect/Cause"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import { foldError } from "../../../common/client.js"
import type { ApiFailure, ApiResponse, ApiSuccess } from "../../../core/ApiResponse.js"
import type { SvcClientFacade, SvcConfig } from "../SvcClient.js"
import type { SvcError } from "../SvcError.js"
import { makeFacadeState } from "./client.js"

export { foldError }

import * as service from "./service.js"

const describeDefect = (cause: Cause.Cause<never>): Error => {
  const defect = Cause.squash(cause)
  if (defect instanceof Error) return defect
  return new Error(Cause.isInterruptedOnly(cause) ? "Request interrupted" : String(defect))
}

/**
 * The runtime the facade runs every program on: Effect's default one, without telemetry. The
 * facade's users have no tracer to read its spans, and the fiber metrics (on in Effect's default
 * runtime) would update five metrics, a histogram among them, for every request's fiber. Both are
 * switched off once, here, with the Runtime module's own setters (a `ManagedRuntime` over the
 * same switches as layers adds ~4 kB gzip to a browser bundle: measured), rather than per request.
 */
export const facadeRuntime = /*#__PURE__*/ Runtime.setFiberRef(
  /*#__PURE__*/ Runtime.disableRuntimeFlag(Runtime.defaultRuntime, RuntimeFlags.RuntimeMetrics),
  FiberRef.currentTracerEnabled,
  false
)

const fork = /*#__PURE__*/ Runtime.runFork(facadeRuntime)
const runPromise = /*#__PURE__*/ Runtime.runPromise(facadeRuntime)

/** Runs a request program to an `ApiResponse`; resolves in every case. */
const run = <A>(
  report: (error: Error) => void,
  program: Effect.Effect<ApiSuccess<A>, SvcError>
): Promise<ApiResponse<A>> =>
  new Promise((resolve) => {
    const unexpected = (cause: unknown): ApiFailure => {
      const error = cause instanceof Error ? cause : new Error(String(cause))
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
      const failure = Cause.failureOption(exit.cause)
      if (failure._tag === "Some") return foldError(failure.value)
      return unexpected(describeDefect(exit.cause as Cause.Cause<never>))
    }
    // the fiber's own observer settles the promise: no promise of Effect's in between
    try {
      fork(program).addObserver((exit) => {
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
const runVoid = (report: (error: Error) => void, program: Effect.Effect<void>): Promise<void> =>
  runPromise(program).catch((cause: unknown) =>
    report(cause instanceof Error ? cause : new Error(String(cause)))
  )

const facades = new WeakSet<object>()

/** Records `value` as a facade, for `instanceof SvcClient`. */
export const mark = <A extends object>(value: A): A => {
  facades.add(value)
  return value
}

export const isFacade = (value: unknown): boolean =>
  typeof value === "object" && value !== null && facades.has(value)

/** The facade's face: every method runs its program, resolving whatever happens. */
const promiseFace = (report: (error: Error) => void): service.Face<"promise"> => ({
  request: (program) => run(report, program),
  sessionId: (program) =>
    runPromise(program).then(
      (id) => (Option.isSome(id) ? Redacted.value(id.value) : null),
      () => null
    ),
  hasSession: (program) => runPromise(program).catch(() => false),
  changeThen: (change, then) => runVoid(report, then(change())),
  change: (change) => change()
})

/** The facade over a fresh client: `config.fetch`, else the runtime's transport. */
export const make = (baseUrl: string, config?: SvcConfig): SvcClientFacade => {
  const state = makeFacadeState(baseUrl, config)
  const transport = service.transportFor(config, () => service.runtimeTransport)
  return mark(service.fromState(state, transport, promiseFace(state.report)))
}
