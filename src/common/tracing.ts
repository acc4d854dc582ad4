/**
 * A call's telemetry on the Effect API, for both lines: one client span per call, a child of the
 * caller's span (named as the line's own `HttpClient` names its spans), and the
 * `http.client.request.duration` histogram. What the span and the metric say is written in
 * `core/tracing.ts`; the line's dialect makes them (`TracingDialect`).
 *
 * Spans follow Effect's own switch (`Effect.withTracerEnabled(false)`); the Promise facade runs
 * with it off and records nothing at all, metric included: it never loads this module.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"
import type { ApiSuccess } from "../core/ApiResponse.js"
import {
  type Attributes,
  CallTrace,
  callServer,
  DurationSeries,
  errorType,
  failureStatus,
  INTERRUPTED,
  type Outcome,
  outcomeAttributes,
  requestAttributes,
  resendAttributes,
  traceHeaders
} from "../core/tracing.js"
import { type CallOf, type CallTracing, describeCall, type TracedCall } from "./client.js"
import type { ClientDialect, TracingDialect } from "./dialect.js"
import type { SvcError } from "./SvcError.js"

const SPAN_OPTIONS = { kind: "client", captureStackTrace: false } as const

/** A span's end time when Effect's span timing is off. */
const NO_TIME = /*#__PURE__*/ BigInt(0)

/**
 * What a successful call's span ends with: a success without the response. Tracers read a span's
 * exit for its status (OpenTelemetry's `OK` or the failure's cause), never a success's value, and
 * V8 makes Effect's record of a span's end in the old generation, where the response would stay
 * until a full collection.
 */
const SUCCEEDED = Exit.void

/** What a call ended with. */
const outcomeOf = <A>(line: ClientDialect, exit: Exit.Exit<ApiSuccess<A>, SvcError>): Outcome => {
  if (Exit.isSuccess(exit)) return { status: exit.value.status, errorType: undefined }
  const failure = line.failureOf(exit.cause)
  if (failure === undefined) return { status: undefined, errorType: INTERRUPTED }
  return { status: failureStatus(failure), errorType: errorType(failure) }
}

/**
 * A call whose caller's spans are off (`Effect.withTracerEnabled(false)`): its duration only,
 * recorded by server, method and outcome without describing the call (no URL is built). A call
 * its caller interrupts is not recorded (no exit handler, which would cost every call more than
 * the record).
 */
const timed = <A>(
  line: ClientDialect,
  dialect: TracingDialect,
  durations: DurationSeries<ReturnType<TracingDialect["histogram"]>>,
  fiber: unknown,
  call: CallOf,
  program: Effect.Effect<ApiSuccess<A>, SvcError>
): Effect.Effect<ApiSuccess<A>, SvcError> => {
  const elapsed = dialect.monotonicNanos(fiber)
  const started = elapsed()
  const server = callServer(call.state.baseUrl, call.endpoint)
  // in the step that ends the call: no Effect of its own
  const record = (outcome: Outcome): void => {
    const seconds = Number(elapsed() - started) / 1e9
    const series =
      server === undefined
        ? durations.of(requestAttributes(call.method, describeCall(call).url()), outcome)
        : durations.ofServer(call.method, server, outcome)
    series.record(seconds, fiber)
  }
  return Effect.matchCauseEffect(program, {
    onFailure: (cause) => {
      record(outcomeOf(line, Exit.failCause(cause)))
      return Effect.failCause(cause)
    },
    onSuccess: (response) => {
      record({ status: response.status, errorType: undefined })
      return Effect.succeed(response)
    }
  })
}

/**
 * The call as the Effect API's caller sees it: a span around it, its duration recorded. `fiber` is
 * the caller's, which the request program has at hand (no step of its own to get it).
 */
const traced = <A>(
  line: ClientDialect,
  dialect: TracingDialect,
  durations: DurationSeries<ReturnType<TracingDialect["histogram"]>>,
  fiber: unknown,
  trace: CallTrace,
  call: TracedCall,
  program: Effect.Effect<ApiSuccess<A>, SvcError>
): Effect.Effect<ApiSuccess<A>, SvcError> => {
  const now = dialect.nanos(fiber)
  const elapsed = dialect.monotonicNanos(fiber)
  const started = elapsed()
  const request = requestAttributes(call.method, call.url())
  const record = (outcome: Outcome): void => {
    const seconds = Number(elapsed() - started) / 1e9
    durations.of(request, outcome).record(seconds, fiber)
  }
  // made and ended here rather than by Effect.useSpan: one exit handler per call, not two
  return Effect.flatMap(
    Effect.makeSpan(dialect.spanName(call.method), SPAN_OPTIONS),
    (span: Tracer.Span) => {
      // set one by one (Effect would copy them into entries first)
      setAll(span, request)
      if (call.propagate) {
        const parent = span.parent
        trace.headers = traceHeaders(span, Option.isSome(parent) ? parent.value.spanId : undefined)
      }
      trace.onResend = (reason, resendCount, sent) =>
        span.event(reason, now(), resendAttributes(resendCount, sent))
      const inner = call.nested ? dialect.withParentSpan(program, span) : program
      return Effect.onExit(inner, (exit) => {
        const outcome = outcomeOf(line, exit)
        setAll(span, outcomeAttributes(trace, outcome))
        record(outcome)
        span.end(
          dialect.timingEnabled(fiber) ? now() : NO_TIME,
          Exit.isSuccess(exit) ? SUCCEEDED : exit
        )
        return Effect.void
      })
    }
  )
}

const setAll = (span: Tracer.Span, attributes: Attributes): void => {
  for (const key in attributes) span.attribute(key, attributes[key])
}

/**
 * The Effect API's calls on a line: each a span around it, its duration recorded in the line's
 * histogram (a series per set of attribute values).
 */
export const callTracing = (line: ClientDialect, dialect: TracingDialect): CallTracing => {
  const durations = new DurationSeries(dialect.histogram)
  return {
    start: () => new CallTrace(),
    traced: (fiber, trace, call: CallOf, program) =>
      dialect.tracerEnabled(fiber)
        ? traced(line, dialect, durations, fiber, trace, describeCall(call), program)
        : timed(line, dialect, durations, fiber, call, program)
  }
}
