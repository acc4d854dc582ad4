/**
 * The Effect 3 binding of a call's telemetry: one client span per call of the Effect API, a child
 * of the caller's span (named as `@effect/platform`'s `HttpClient` names its spans:
 * `http.client GET`), and the `http.client.request.duration` histogram. What the span and the
 * metric say is written once, in `core/tracing.ts`; this file only makes them with Effect 3's API.
 *
 * Spans follow Effect's own switch (`Effect.withTracerEnabled(false)`,
 * `FiberRef.currentTracerEnabled`); the Promise facade runs with it off and records nothing at all,
 * metric included.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricKey from "effect/MetricKey"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"
import type { ApiSuccess } from "../../../core/ApiResponse.js"
import {
  type Attributes,
  CallTrace,
  DURATION_BOUNDARIES,
  DURATION_DESCRIPTION,
  DURATION_METRIC,
  DurationSeries,
  errorType,
  failureStatus,
  INTERRUPTED,
  type Outcome,
  outcomeAttributes,
  requestAttributes,
  resendAttributes,
  traceHeaders
} from "../../../core/tracing.js"
import type { SvcError } from "../SvcError.js"

const durationKey = /*#__PURE__*/ MetricKey.histogram(
  DURATION_METRIC,
  /*#__PURE__*/ MetricBoundaries.fromIterable(DURATION_BOUNDARIES),
  DURATION_DESCRIPTION
)

/** The request-duration histogram (seconds), a series per set of attribute values. */
const durations = /*#__PURE__*/ new DurationSeries((attributes) =>
  Metric.fromMetricKey(
    MetricKey.taggedWithLabels(
      durationKey,
      Object.keys(attributes).map((name) => MetricLabel.make(name, attributes[name]!))
    )
  )
)

/** The span's name, as `@effect/platform`'s `HttpClient` names its client spans. */
const spanName = (method: string): string => `http.client ${method}`

const SPAN_OPTIONS = { kind: "client", captureStackTrace: false } as const

/** A span's end time when Effect's span timing is off. */
const NO_TIME = /*#__PURE__*/ BigInt(0)

/** What a call ended with. */
const outcomeOf = <A>(exit: Exit.Exit<ApiSuccess<A>, SvcError>): Outcome => {
  if (Exit.isSuccess(exit)) return { status: exit.value.status, errorType: undefined }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return { status: undefined, errorType: INTERRUPTED }
  return { status: failureStatus(failure.value), errorType: errorType(failure.value) }
}

/** What the span of a call says before it is sent. */
export interface Call {
  readonly method: string
  /** The URL as the caller gave it (endpoint and params). */
  readonly url: () => string
  /** Whether its requests to the base URL's origin carry the span's trace context. */
  readonly propagate: boolean
  /**
   * Whether the call runs the application's code (interceptors, callbacks, a session lookup):
   * then the call's span is the parent of the spans that code makes. (Otherwise nothing inside
   * makes spans, and providing the parent would cost every call about 3 µs: measured.)
   */
  readonly nested: boolean
}

/**
 * The call as the Effect API's caller sees it: a span around it, its duration recorded. `fiber` is
 * the caller's, which the request program has at hand (no step of its own to get it).
 */
export const traced = <A>(
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  trace: CallTrace,
  call: Call,
  program: Effect.Effect<ApiSuccess<A>, SvcError>
): Effect.Effect<ApiSuccess<A>, SvcError> => {
  const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
  const started = clock.unsafeCurrentTimeNanos()
  const request = requestAttributes(call.method, call.url())
  // in the step that ends the call: no Effect of its own
  const record = (outcome: Outcome): void => {
    const seconds = Number(clock.unsafeCurrentTimeNanos() - started) / 1e9
    durations
      .of(request, outcome)
      .unsafeUpdate(seconds, fiber.getFiberRef(FiberRef.currentMetricLabels))
  }
  if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) {
    // the duration only: a call its caller interrupts is not recorded (no exit handler, which
    // would cost every call more than the record)
    return Effect.matchCauseEffect(program, {
      onFailure: (cause) => {
        record(outcomeOf(Exit.failCause(cause)))
        return Effect.failCause(cause)
      },
      onSuccess: (response) => {
        record({ status: response.status, errorType: undefined })
        return Effect.succeed(response)
      }
    })
  }
  // made and ended here rather than by Effect.useSpan: one exit handler per call, not two
  return Effect.flatMap(
    Effect.makeSpan(spanName(call.method), SPAN_OPTIONS),
    (span: Tracer.Span) => {
      // set one by one (Effect would copy them into entries first)
      setAll(span, request)
      if (call.propagate) {
        const parent = span.parent
        trace.headers = traceHeaders(span, Option.isSome(parent) ? parent.value.spanId : undefined)
      }
      trace.onResend = (reason, resendCount, sent) =>
        span.event(reason, clock.unsafeCurrentTimeNanos(), resendAttributes(resendCount, sent))
      const inner = call.nested ? Effect.withParentSpan(program, span) : program
      return Effect.onExit(inner, (exit) => {
        const outcome = outcomeOf(exit)
        setAll(span, outcomeAttributes(trace, outcome))
        record(outcome)
        span.end(
          fiber.getFiberRef(FiberRef.currentTracerTimingEnabled)
            ? clock.unsafeCurrentTimeNanos()
            : NO_TIME,
          exit
        )
        return Effect.void
      })
    }
  )
}

const setAll = (span: Tracer.Span, attributes: Attributes): void => {
  for (const key in attributes) span.attribute(key, attributes[key])
}

export { CallTrace }
