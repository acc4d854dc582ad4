/**
 * The request program (`common/client.ts`) on Effect 3: what this line spells its own way.
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import * as common from "../../../common/client.js"
import type { ApiSuccess } from "../../../core/ApiResponse.js"
import { isTransient } from "../../../core/retry.js"
import { CallTrace } from "../../../core/tracing.js"
import type { HttpMethod, RequestOptions, SvcConfig } from "../SvcClient.js"
import type { SvcError } from "../SvcError.js"
import { line } from "./line.js"
import { backoff, honourRetryAfter } from "./retry.js"
import { traced } from "./tracing.js"

export { type ClientState, fromHttpError, type Transport } from "../../../common/client.js"

/**
 * effect/ParseResult is loaded only by a request that passes a schema: an app that never does
 * neither loads nor bundles it (nor effect/Schema, which the app's own schema brings).
 */
const loadParseResult = () => import("effect/ParseResult")

/** The facade's line: it records nothing (no span, no duration), and bundles none of that. */
const effect3Facade: common.ClientLine = {
  values: line,
  backoff,
  retry: (effect, schedule) =>
    Effect.retry(effect, {
      schedule: honourRetryAfter(schedule as Schedule.Schedule<unknown, SvcError>),
      while: isTransient
    }),
  now: (clock: Clock.Clock) => clock.unsafeCurrentTimeMillis(),
  timeout: (effect, millis, onTimeout) =>
    Effect.timeoutFail(effect, { duration: Duration.millis(millis), onTimeout }),
  callback: (register) => Effect.async((resume) => register(resume)),
  yieldNow: Effect.yieldNow(),
  withFiber: (f) => Effect.withFiberRuntime((fiber) => f(fiber)),
  decodeSchema: (schema, data) =>
    Effect.flatMap(Effect.promise(loadParseResult), (ParseResult) =>
      Effect.mapError(
        ParseResult.decodeUnknown(schema as Schema.Schema<unknown, unknown, never>)(data),
        (issue) => {
          const error = ParseResult.parseError(issue)
          return { message: ParseResult.TreeFormatter.formatErrorSync(error), cause: error }
        }
      )
    )
}

/** Each call of the Effect API a span, its duration recorded. */
const tracing: NonNullable<common.ClientLine["tracing"]> = {
  start: () => new CallTrace(),
  traced: (fiber, trace, call, program) =>
    traced(fiber as Fiber.RuntimeFiber<unknown, unknown>, trace, common.describeCall(call), program)
}

/**
 * The Effect API's line. (Built by a call marked pure, so that a facade's bundle drops it with
 * the tracing.)
 */
const effect3: common.ClientLine = /*#__PURE__*/ Object.assign({}, effect3Facade, { tracing })

/** Validates `baseUrl` and `config` and builds the state of an Effect API client. */
export const makeState = (baseUrl: string, config?: SvcConfig): common.ClientState =>
  common.makeState(effect3, baseUrl, config, "effect")

/** Validates `baseUrl` and `config` and builds the state of a facade. */
export const makeFacadeState = (baseUrl: string, config?: SvcConfig): common.ClientState =>
  common.makeState(effect3Facade, baseUrl, config, "promise")

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
