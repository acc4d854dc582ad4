/**
 * Effect 4's dialect: what the shared code (`src/common/`) needs of Effect 4 that Effect 3 spells
 * otherwise. Member for member in the order of `common/dialect.ts`, as `src/v3/internal/dialect.ts`
 * gives Effect 3's: a `diff` of the two files is the list of differences.
 */
import type { NonEmptyReadonlyArray } from "effect/Array"
import * as Cause from "effect/Cause"
import { Clock } from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as References from "effect/References"
import type * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { ClientDialect, StreamDialect, TracingDialect } from "../common/dialect.js"
import { loadOnce } from "../common/loadOnce.js"
import { RETRY_RULES } from "../core/retry.js"
import { DURATION_BOUNDARIES, DURATION_DESCRIPTION, DURATION_METRIC } from "../core/tracing.js"

/** Effect 4's `Schedule` type id, a string key. */
const scheduleTypeId = "~effect/Schedule"

/** Effect 4's `Schema` type id: a string key whose value is itself. */
const schemaTypeId = "~effect/Schema/Schema"

/**
 * The decoder is loaded only by a request that passes a schema: an app that never does neither
 * loads nor bundles it. effect/SchemaParser (not effect/Schema) decodes, with effect/SchemaIssue's
 * formatter for the message effect/Schema's `SchemaError` would have: the code a facade loads at
 * once shares far less with the parser than with all of effect/Schema.
 */
const decoder = /*#__PURE__*/ loadOnce(async () => {
  const [SchemaParser, SchemaIssue] = await Promise.all([
    import("effect/SchemaParser"),
    import("effect/SchemaIssue")
  ])
  return { SchemaParser, format: SchemaIssue.makeFormatterDefault() }
}, "schema decoder")

/** The retries, loaded on a request's first transient failure (`retry.ts`). */
const retries = /*#__PURE__*/ loadOnce(() => import("./retry.js"), "retries")

/** The services the facade runs every program with: the tracer off. */
const facadeServices = /*#__PURE__*/ Context.make(References.TracerEnabled, false)

/** The keys of Effect 4's duration object (`Duration.DurationObject`). */
const durationObjectKey = /^(weeks|days|hours|minutes|seconds|(milli|micro|nano)seconds)$/

export const client: ClientDialect = {
  durationMillis: (value) => {
    // Effect 4 reads a plain object as a duration object, skipping the keys it does not know and
    // those left undefined: `{ second: 5 }`, `{ seconds: undefined }` and `{}` would be no time at
    // all (a class's instance, `Temporal.Duration` among them, it reads by its own rules)
    if (
      typeof value === "object" &&
      value !== null &&
      (Object.getPrototypeOf(value) ?? Object.prototype) === Object.prototype
    ) {
      const keys = Object.keys(value).filter(
        (key) => (value as Record<string, unknown>)[key] !== undefined
      )
      if (!(keys.length && keys.every((key) => durationObjectKey.test(key)))) return undefined
    }
    const decoded = Duration.fromInput(value as Duration.Input)
    return Option.isSome(decoded) ? Duration.toMillis(decoded.value) : undefined
  },
  // by its type id, as `Schedule.isSchedule` tests it, without importing effect/Schedule: the
  // retries load it on a first transient failure (retry.ts)
  isSchedule: (value) =>
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    scheduleTypeId in value,
  // by its type id, as `Schema.isSchema` tests it, without importing effect/Schema: a facade that
  // never decodes does not bundle it
  isSchema: (value) =>
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    (value as { readonly [schemaTypeId]?: unknown })[schemaTypeId] === schemaTypeId,
  // without the retries (a chunk that could not come), the failure that asked for them: the
  // server's answer, not the loader's
  retry: (effect, plan) =>
    Effect.matchEffect(retries, {
      onFailure: () => effect,
      onSuccess: (loaded) => loaded.retry(effect, plan, RETRY_RULES)
    }),
  now: (clock) => clock.currentTimeMillisUnsafe(),
  callback: (register) => Effect.callback((resume) => register(resume)),
  yieldNow: Effect.yieldNow,
  withFiber: (f) => Effect.withFiber((fiber) => f(fiber)),
  decodable: (data) => data,
  decodeSchema: (schema, data) =>
    Effect.flatMap(decoder, ({ SchemaParser, format }) =>
      Effect.mapError(
        SchemaParser.decodeUnknownEffect(schema as Schema.Codec<unknown, unknown>)(data),
        (issue) => ({ message: format(issue), cause: issue })
      )
    ),
  failureOf: (cause) => Option.getOrUndefined(Cause.findErrorOption(cause)),
  isInterruptedOnly: Cause.hasInterruptsOnly,
  interrupt: (fiber) => (fiber as Fiber.Fiber<unknown, unknown>).interruptUnsafe(),
  forkInContext: (effect) =>
    Effect.map(Effect.context<never>(), (context) => () => Effect.runForkWith(context)(effect)),
  runnerInContext: Effect.map(Effect.context<never>(), (context) => Effect.runForkWith(context)),
  runFork: /*#__PURE__*/ Effect.runForkWith(facadeServices),
  runPromise: /*#__PURE__*/ Effect.runPromiseWith(facadeServices)
}

export const tracing: TracingDialect = {
  histogram: (attributes) => {
    const metric = Metric.histogram(DURATION_METRIC, {
      description: DURATION_DESCRIPTION,
      boundaries: DURATION_BOUNDARIES,
      attributes
    })
    return {
      record: (seconds, fiber) =>
        metric.updateUnsafe(seconds, (fiber as Fiber.Fiber<unknown, unknown>).context)
    }
  },
  spanName: (method) => method,
  nanos: (fiber) => {
    const clock = (fiber as Fiber.Fiber<unknown, unknown>).getRef(Clock)
    return () => clock.currentTimeNanosUnsafe()
  },
  monotonicNanos: (fiber) => {
    const clock = (fiber as Fiber.Fiber<unknown, unknown>).getRef(Clock)
    return () => clock.monotonicTimeNanosUnsafe()
  },
  tracerEnabled: (fiber) =>
    (fiber as Fiber.Fiber<unknown, unknown>).getRef(References.TracerEnabled),
  timingEnabled: (fiber) =>
    (fiber as Fiber.Fiber<unknown, unknown>).getRef(References.TracerTimingEnabled),
  withParentSpan: (effect, span) =>
    Effect.withParentSpan(effect, span, { captureStackTrace: false })
}

export const streams: StreamDialect = {
  // a batch is a chunk as it is: the batches are never empty
  fromBatches: <A, E>(
    readable: () => ReadableStream<ReadonlyArray<A>>,
    onError: (error: unknown) => E
  ) =>
    Stream.flattenArray(
      Stream.fromReadableStream({ evaluate: readable, onError }) as Stream.Stream<
        NonEmptyReadonlyArray<A>,
        E
      >
    )
}
