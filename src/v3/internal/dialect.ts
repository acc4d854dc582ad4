/**
 * Effect 3's dialect: what the shared code (`src/common/`) needs of Effect 3 that Effect 4 spells
 * otherwise. Member for member in the order of `common/dialect.ts`, as `src/internal/dialect.ts`
 * gives Effect 4's: a `diff` of the two files is the list of differences.
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricKey from "effect/MetricKey"
import * as MetricLabel from "effect/MetricLabel"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { ClientDialect, StreamDialect, TracingDialect } from "../../common/dialect.js"
import { loadOnce } from "../../common/loadOnce.js"
import { DURATION_BOUNDARIES, DURATION_DESCRIPTION, DURATION_METRIC } from "../../core/tracing.js"
// imported, not loaded on demand as on Effect 4: it uses nothing of effect/Schedule's module
import { retry } from "./retry.js"

/** Effect 3's `Schedule` type id. */
const scheduleTypeId = Symbol.for("effect/Schedule")

/**
 * effect/ParseResult is loaded only by a request that passes a schema: an app that never does
 * neither loads nor bundles it (nor effect/Schema, which the app's own schema brings).
 */
const decoder = /*#__PURE__*/ loadOnce(() => import("effect/ParseResult"), "schema decoder")

/**
 * The runtime the facade runs every program on: Effect's default one, without telemetry. The
 * fiber metrics (on in Effect 3's default runtime) would update five metrics, a histogram among
 * them, for every request's fiber. Both are switched off once, with the Runtime module's own
 * setters (a `ManagedRuntime` over the same switches as layers adds ~4 kB gzip to a browser
 * bundle: measured).
 */
export const facadeRuntime = /*#__PURE__*/ Runtime.setFiberRef(
  /*#__PURE__*/ Runtime.disableRuntimeFlag(Runtime.defaultRuntime, RuntimeFlags.RuntimeMetrics),
  FiberRef.currentTracerEnabled,
  false
)

const durationKey = /*#__PURE__*/ MetricKey.histogram(
  DURATION_METRIC,
  /*#__PURE__*/ MetricBoundaries.fromIterable(DURATION_BOUNDARIES),
  DURATION_DESCRIPTION
)

/**
 * `data` with its own `__proto__` keys taken out, at any depth (JSON.parse makes them own keys):
 * Effect 3 decodes a `Schema.Record` by assigning each key, and that one would set the decoded
 * object's prototype (Effect 4 defines it as an own key). Walked with a stack of its own, so that
 * no nesting a server sends can overflow the call stack.
 */
const withoutProtoKeys = (data: unknown): unknown => {
  const pending = [data]
  const seen = new Set<object>()
  while (pending.length > 0) {
    const value = pending.pop()
    if (typeof value !== "object" || value === null || seen.has(value)) continue
    seen.add(value)
    if (Object.hasOwn(value, "__proto__")) Reflect.deleteProperty(value, "__proto__")
    for (const key of Object.keys(value)) pending.push((value as Record<string, unknown>)[key])
  }
  return data
}

export const client: ClientDialect = {
  durationMillis: (value) => {
    const decoded = Duration.decodeUnknown(value)
    return Option.isSome(decoded) ? Duration.toMillis(decoded.value) : undefined
  },
  // by its symbol, without importing effect/Schedule: a facade never bundles its module
  isSchedule: (value) =>
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    scheduleTypeId in value,
  // by its symbol, without importing effect/Schema: a facade that never decodes does not bundle it
  isSchema: (value) =>
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    Symbol.for("effect/Schema") in value,
  retry,
  now: (clock) => clock.unsafeCurrentTimeMillis(),
  callback: (register) => Effect.async((resume) => register(resume)),
  yieldNow: Effect.yieldNow(),
  withFiber: (f) => Effect.withFiberRuntime((fiber) => f(fiber)),
  decodable: withoutProtoKeys,
  decodeSchema: (schema, data) =>
    Effect.flatMap(decoder, (ParseResult) =>
      Effect.mapError(
        ParseResult.decodeUnknown(schema as Schema.Schema<unknown, unknown, never>)(data),
        (issue) => {
          const error = ParseResult.parseError(issue)
          return { message: ParseResult.TreeFormatter.formatErrorSync(error), cause: error }
        }
      )
    ),
  failureOf: (cause) => Option.getOrUndefined(Cause.failureOption(cause)),
  isInterruptedOnly: Cause.isInterruptedOnly,
  interrupt: (fiber) =>
    (fiber as Fiber.RuntimeFiber<unknown, unknown>).unsafeInterruptAsFork(FiberId.none),
  forkInContext: (effect) =>
    Effect.map(Effect.runtime<never>(), (runtime) => () => Runtime.runFork(runtime)(effect)),
  runnerInContext: Effect.map(Effect.runtime<never>(), (runtime) => Runtime.runFork(runtime)),
  runFork: /*#__PURE__*/ Runtime.runFork(facadeRuntime),
  runPromise: /*#__PURE__*/ Runtime.runPromise(facadeRuntime)
}

/** The fiber's clock, in nanoseconds. */
const clockNanos = (fiber: unknown): (() => bigint) => {
  const clock = Context.get(
    (fiber as Fiber.RuntimeFiber<unknown, unknown>).currentDefaultServices,
    Clock.Clock
  )
  return () => clock.unsafeCurrentTimeNanos()
}

export const tracing: TracingDialect = {
  histogram: (attributes) => {
    const metric = Metric.fromMetricKey(
      MetricKey.taggedWithLabels(
        durationKey,
        Object.keys(attributes).map((name) => MetricLabel.make(name, attributes[name]!))
      )
    )
    return {
      record: (seconds, fiber) =>
        metric.unsafeUpdate(
          seconds,
          (fiber as Fiber.RuntimeFiber<unknown, unknown>).getFiberRef(FiberRef.currentMetricLabels)
        )
    }
  },
  spanName: (method) => `http.client ${method}`,
  nanos: clockNanos,
  // Effect 3's clock is monotonic already: a fixed origin plus the process's high-resolution time
  monotonicNanos: clockNanos,
  tracerEnabled: (fiber) =>
    (fiber as Fiber.RuntimeFiber<unknown, unknown>).getFiberRef(FiberRef.currentTracerEnabled),
  timingEnabled: (fiber) =>
    (fiber as Fiber.RuntimeFiber<unknown, unknown>).getFiberRef(
      FiberRef.currentTracerTimingEnabled
    ),
  withParentSpan: (effect, span) => Effect.withParentSpan(effect, span)
}

export const streams: StreamDialect = {
  // `Stream.fromReadableStream`'s own steps, each batch the chunk it reads (no stage after it)
  fromBatches: (readable, onError) =>
    Stream.unwrapScoped(
      Effect.map(
        Effect.acquireRelease(
          Effect.sync(() => readable().getReader()),
          (reader) => Effect.promise(() => reader.cancel())
        ),
        (reader) =>
          Stream.repeatEffectChunkOption(
            Effect.flatMap(
              Effect.tryPromise({
                try: () => reader.read(),
                catch: (error) => Option.some(onError(error))
              }),
              (read) =>
                read.done
                  ? Effect.fail(Option.none())
                  : Effect.succeed(Chunk.unsafeFromArray(read.value))
            )
          )
      )
    )
}
