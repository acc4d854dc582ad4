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
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
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
  errorType,
  failureStatus,
  INTERRUPTED,
  MAX_CACHED_SERIES,
  metricAttributes,
  type Outcome,
  outcomeAttributes,
  requestAttributes,
  resendAttributes,
  seriesKey,
  traceHeaders
} from "../../../core/tracing.js"
import type { SvcError } from "../SvcError.js"

const durationKey = /*#__PURE__*/ MetricKey.histogram(
  DURATION_METRIC,
  /*#__PURE__*/ MetricBoundaries.fromIterable(DURATION_BOUNDARIES),
  DURATION_DESCRIPTION
)

/**
 * The series of the request-duration histogram (seconds) with these attributes, made once: a
 * metric tagged at each update would make its key, and look it up, at every request.
 */
const series = new Map<string, Metric.Metric.Histogram<number>>()

const durationSeries = (attributes: Readonly<Record<string, string>>) => {
  const key = seriesKey(attributes)
  let metric = series.get(key)
  if (metric === undefined) {
    const tags = Object.keys(attributes).map((name) => MetricLabel.make(name, attributes[name]!))
    metric = Metric.fromMetricKey(MetricKey.taggedWithLabels(durationKey, tags))
    if (series.size < MAX_CACHED_SERIES) series.set(key, metric)
  }
  return metric
}

/** The span's name, as `@effect/platform`'s `HttpClient` names its client spans. */
const spanName = (method: string): string => `http.client ${method}`

const SPAN_OPTIONS = { kind: "client", captureStackTrace: false } as const

/** What a call ended with. */
const outcomeOf = <A>(exit: Exit.Exit<ApiSuccess<A>, SvcError>): Outcome => {
  if (Exit.isSuccess(exit)) return { status: exit.value.status, errorType: undefined }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) return { status: undefined, errorType: INTERRUPTED }
  return { status: failureStatus(failure.value), errorType: errorType(failure.value) }
}

/** The call as the Effect API's caller sees it: a span around it, its duration recorded. */
export const traced = <A>(
  trace: CallTrace | undefined,
  method: string,
  url: () => string,
  propagate: boolean,
  program: Effect.Effect<ApiSuccess<A>, SvcError>
): Effect.Effect<ApiSuccess<A>, SvcError> => {
  if (trace === undefined) return program
  return Effect.clockWith((clock) =>
    Effect.withFiberRuntime<ApiSuccess<A>, SvcError>((fiber) => {
      const started = clock.unsafeCurrentTimeNanos()
      const request = requestAttributes(method, url())
      const record = (outcome: Outcome) => {
        const seconds = Number(clock.unsafeCurrentTimeNanos() - started) / 1e9
        return Metric.update(durationSeries(metricAttributes(request, outcome)), seconds)
      }
      if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) {
        return Effect.onExit(program, (exit) => record(outcomeOf(exit)))
      }
      return Effect.useSpan(
        spanName(method),
        { ...SPAN_OPTIONS, attributes: request },
        (span: Tracer.Span) => {
          if (propagate) {
            const parent = span.parent
            trace.headers = traceHeaders(
              span,
              Option.isSome(parent) ? parent.value.spanId : undefined
            )
          }
          trace.onResend = (reason, resendCount, sent) =>
            span.event(reason, clock.unsafeCurrentTimeNanos(), resendAttributes(resendCount, sent))
          return Effect.onExit(Effect.withParentSpan(program, span), (exit) => {
            const outcome = outcomeOf(exit)
            setAll(span, outcomeAttributes(trace, outcome))
            return record(outcome)
          })
        }
      )
    })
  )
}

const setAll = (span: Tracer.Span, attributes: Attributes): void => {
  for (const key in attributes) span.attribute(key, attributes[key])
}

export { CallTrace }
