/**
 * The request program (`common/client.ts`) on Effect 4: what this line spells its own way.
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import * as common from "../../common/client.js"
import type { ApiSuccess } from "../../core/ApiResponse.js"
import { isTransient } from "../../core/retry.js"
import { CallTrace } from "../../core/tracing.js"
import type { HttpMethod, RequestOptions, SvcConfig } from "../SvcClient.js"
import type { SvcError } from "../SvcError.js"
import { line } from "./line.js"
import { backoff, honourRetryAfter } from "./retry.js"
import { traced } from "./tracing.js"

export { type ClientState, fromHttpError, type Transport } from "../../common/client.js"

/**
 * The decoder is loaded only by a request that passes a schema: an app that never does neither
 * loads nor bundles it. effect/SchemaParser (not effect/Schema) decodes, with effect/SchemaIssue's
 * formatter for the message effect/Schema's `SchemaError` would have: the code a facade loads at
 * once shares far less with the parser than with all of effect/Schema.
 */
const loadDecoder = async () => {
  const [SchemaParser, SchemaIssue] = await Promise.all([
    import("effect/SchemaParser"),
    import("effect/SchemaIssue")
  ])
  return { SchemaParser, format: SchemaIssue.makeFormatterDefault() }
}

/** The facade's line: it records nothing (no span, no duration), and bundles none of that. */
const effect4Facade: common.ClientLine = {
  values: line,
  backoff,
  retry: (effect, schedule) =>
    Effect.retry(effect, {
      schedule: honourRetryAfter(schedule as Schedule.Schedule<unknown, SvcError>),
      while: isTransient
    }),
  now: (clock: Clock.Clock) => clock.currentTimeMillisUnsafe(),
  timeout: (effect, millis, onTimeout) =>
    Effect.timeoutOrElse(effect, {
      duration: Duration.millis(millis),
      orElse: () => Effect.fail(onTimeout())
    }),
  callback: (register) => Effect.callback((resume) => register(resume)),
  yieldNow: Effect.yieldNow,
  withFiber: (f) => Effect.withFiber((fiber) => f(fiber)),
  decodeSchema: (schema, data) =>
    Effect.flatMap(Effect.promise(loadDecoder), ({ SchemaParser, format }) =>
      Effect.mapError(
        SchemaParser.decodeUnknownEffect(schema as Schema.Codec<unknown, unknown>)(data),
        (issue) => ({ message: format(issue), cause: issue })
      )
    )
}

/** Each call of the Effect API a span, its duration recorded. */
const tracing: NonNullable<common.ClientLine["tracing"]> = {
  start: () => new CallTrace(),
  traced: (fiber, trace, call, program) =>
    traced(fiber as Fiber.Fiber<unknown, unknown>, trace, common.describeCall(call), program)
}

/**
 * The Effect API's line. (Built by a call marked pure, so that a facade's bundle drops it with
 * the tracing.)
 */
const effect4: common.ClientLine = /*#__PURE__*/ Object.assign({}, effect4Facade, { tracing })

/** Validates `baseUrl` and `config` and builds the state of an Effect API client. */
export const makeState = (baseUrl: string, config?: SvcConfig): common.ClientState =>
  common.makeState(effect4, baseUrl, config, "effect")

/** Validates `baseUrl` and `config` and builds the state of a facade. */
export const makeFacadeState = (baseUrl: string, config?: SvcConfig): common.ClientState =>
  common.makeState(effect4Facade, baseUrl, config, "promise")

/**
 * The whole request: check, prepare, interceptors, `onRequest`, send (retry, timeout), envelope,
 * response interceptors, decode, `onResponse`.
 */
export const request: <A, I>(
  state: common.ClientState,
  transport: common.Transport,
  method: HttpMethod,
  endpoint: string,
  body: unknown,
  options?: RequestOptions<A, I>
) => Effect.Effect<ApiSuccess<A>, SvcError> = common.request
