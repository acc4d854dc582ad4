/**
 * Every check of what the caller gives the client, in one place, for both Effect lines: the config
 * once, at construction (a bad value throws), and each request's endpoint and options (a bad value
 * is an invalid argument, and nothing is sent). What only an Effect line knows — its `Duration`
 * inputs, its `Schedule`s — comes in as {@link LineValues}.
 */
import { describe, isRecord, messageOf } from "./describe.js"
import { checkHeader } from "./headers.js"
import { RESPONSE_TYPES } from "./response.js"
import { checkSessionId } from "./session.js"
import { isStandardSchema } from "./standardSchema.js"
import { endpointProblem } from "./url.js"

/** What only an Effect line knows about the values a caller gives. */
export interface LineValues {
  /** Milliseconds of a `Duration` input of the line (`"5 seconds"`, a `Duration`); else `undefined`. */
  readonly durationMillis: (value: unknown) => number | undefined
  /** Whether `value` is a `Schedule` of the line. */
  readonly isSchedule: (value: unknown) => boolean
  /** Whether `value` is an `effect/Schema` of the line. */
  readonly isSchema: (value: unknown) => boolean
}

/** An argument the caller got wrong: its name and what is wrong with it. */
export interface InvalidArgument {
  readonly _tag: "InvalidArgument"
  readonly argument: string
  readonly reason: string
}

const invalid = (argument: string, reason: string): InvalidArgument => ({
  _tag: "InvalidArgument",
  argument,
  reason
})

/** The options a check reads: each field is checked, whatever its type. */
type Fields = { readonly [key: string]: unknown }

/** Default timeout: 30 s. */
export const DEFAULT_TIMEOUT_MILLIS = 30_000

/** The longest timeout a timer can hold (2³¹ − 1 ms, about 24.8 days). */
export const MAX_TIMEOUT_MILLIS = 2_147_483_647

/** Default `maxResponseBytes`: 64 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024

/** Default number of retries. */
export const DEFAULT_RETRY_ATTEMPTS = 2

/**
 * A timeout in milliseconds from a number (ms) or a `Duration`: `0` disables it; negative, not
 * finite or above {@link MAX_TIMEOUT_MILLIS} is refused: a string says why.
 */
export const timeoutMillis = (line: LineValues, value: unknown): number | string => {
  const millis = typeof value === "number" ? value : line.durationMillis(value)
  if (millis === undefined) {
    return `must be a number of milliseconds or a Duration, got ${describe(value)}`
  }
  if (!Number.isFinite(millis) || millis < 0 || millis > MAX_TIMEOUT_MILLIS) {
    return `must be between 0 (no timeout) and ${MAX_TIMEOUT_MILLIS} ms, got ${describe(
      typeof value === "number" ? value : `${millis} ms`
    )}`
  }
  return millis
}

/** {@link timeoutMillis} for the config: a bad value throws a `RangeError` naming the option. */
export const configTimeoutMillis = (line: LineValues, value: unknown, name: string): number => {
  const millis = timeoutMillis(line, value)
  if (typeof millis === "string") throw new RangeError(`${name} ${millis}`)
  return millis
}

const REDIRECT_MODES: ReadonlySet<string> = new Set(["follow", "manual"])

const CALLBACKS = [
  "getSessionId",
  "refreshSession",
  "onRequest",
  "onResponse",
  "onError",
  "onDownloadProgress",
  "onUploadProgress"
] as const

/** The progress callbacks a request may give. */
const PROGRESS_CALLBACKS = ["onDownloadProgress", "onUploadProgress"] as const

/**
 * What is wrong with a setting the config and a request both take, by its name (`includeSession`,
 * `retrySchedule`, `responseType`, `redirect`); `undefined` when each is absent or right.
 */
const sharedProblem = (
  line: LineValues,
  fields: Fields
): readonly [name: string, reason: string] | undefined => {
  if (fields.includeSession !== undefined && typeof fields.includeSession !== "boolean") {
    return ["includeSession", `must be a boolean, got ${describe(fields.includeSession)}`]
  }
  if (fields.retrySchedule !== undefined && !line.isSchedule(fields.retrySchedule)) {
    return ["retrySchedule", "must be a Schedule"]
  }
  if (fields.responseType !== undefined && !RESPONSE_TYPES.has(fields.responseType as string)) {
    return [
      "responseType",
      `must be one of auto, json, text, bytes, blob, got ${describe(fields.responseType)}`
    ]
  }
  if (fields.redirect !== undefined && !REDIRECT_MODES.has(fields.redirect as string)) {
    return ["redirect", `must be "follow" or "manual", got ${describe(fields.redirect)}`]
  }
  return undefined
}

/** Checks the config once, at construction: a bad value throws a `TypeError`/`RangeError`. */
export const checkConfig = (line: LineValues, given: object): void => {
  if (!isRecord(given)) throw new TypeError(`config must be an object, got ${describe(given)}`)
  const config: Fields = given
  const attempts = config.retryAttempts
  if (attempts !== undefined && !isCount(attempts)) {
    throw new RangeError(`retryAttempts must be an integer ≥ 0, got ${describe(attempts)}`)
  }
  if (config.timeout !== undefined) configTimeoutMillis(line, config.timeout, "timeout")
  if (config.totalTimeout !== undefined) {
    configTimeoutMillis(line, config.totalTimeout, "totalTimeout")
  }
  if (config.idleTimeout !== undefined) {
    configTimeoutMillis(line, config.idleTimeout, "idleTimeout")
  }
  if (config.sessionHeader !== undefined) checkHeader(config.sessionHeader, "")
  if (config.headers !== undefined) {
    if (!isRecord(config.headers)) {
      throw new TypeError(`headers must be an object, got ${describe(config.headers)}`)
    }
    for (const [name, value] of Object.entries(config.headers)) {
      // an absent value leaves the header out, as in `params`
      if (value !== undefined && value !== null) checkHeader(name, value)
    }
  }
  if (config.sessionId !== undefined) checkSessionId(config.sessionId)
  if (config.tracerPropagation !== undefined && typeof config.tracerPropagation !== "boolean") {
    throw new TypeError(
      `tracerPropagation must be a boolean, got ${describe(config.tracerPropagation)}`
    )
  }
  const max = config.maxResponseBytes
  if (max !== undefined && !(max === Number.POSITIVE_INFINITY || (isCount(max) && max > 0))) {
    throw new RangeError(
      `maxResponseBytes must be a positive integer or Infinity, got ${describe(max)}`
    )
  }
  const problem = sharedProblem(line, config)
  if (problem !== undefined) throw new TypeError(`${problem[0]} ${problem[1]}`)
  if (config.fetch !== undefined && typeof config.fetch !== "function") {
    throw new TypeError(`fetch must be a function, got ${describe(config.fetch)}`)
  }
  for (const name of CALLBACKS) {
    if (config[name] !== undefined && typeof config[name] !== "function") {
      throw new TypeError(`${name} must be a function, got ${describe(config[name])}`)
    }
  }
}

/** Whether `value` can serve as an `AbortSignal` (one from another realm included). */
export const isAbortSignal = (value: unknown): value is AbortSignal =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as AbortSignal).aborted === "boolean" &&
  typeof (value as AbortSignal).addEventListener === "function" &&
  typeof (value as AbortSignal).removeEventListener === "function"

const isParamValue = (value: unknown): boolean => {
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
    case "bigint":
    case "undefined":
      return true
    default:
      return value === null || (value instanceof Date && !Number.isNaN((value as Date).getTime()))
  }
}

/** A safe integer ≥ 0. */
const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** A request's time limits, in the order of {@link ClientDefaults}. */
const LIMITS = ["timeout", "totalTimeout", "idleTimeout"] as const

/** The request's own settings, once its endpoint and options are checked. */
export interface CheckedRequest {
  /** The time allowed for each try and for each piece of the application's code; `0`: none. */
  readonly timeoutMillis: number
  /** The time allowed for the whole call, retries and waits included; `0`: none. */
  readonly totalTimeoutMillis: number
  /** The longest silence allowed while the body is read; `0`: none. */
  readonly idleMillis: number
  /** This request's own retry count, if it has one. */
  readonly retryAttempts: number | undefined
}

/** The client's own defaults a request's options override. */
export interface ClientDefaults {
  readonly timeoutMillis: number
  readonly totalTimeoutMillis: number
  readonly idleMillis: number
}

/**
 * Runs `check` over options the caller gave: one that throws while reading them (a getter, a
 * Proxy, a revoked Proxy) is an invalid `options`, never a crash.
 */
export const readingOptions = <A>(check: () => A | InvalidArgument): A | InvalidArgument => {
  try {
    return check()
  } catch (cause) {
    return invalid("options", `could not be read: ${messageOf(cause)}`)
  }
}

/** Checks a request's endpoint and options; nothing is sent when they are wrong. */
export const checkRequest = (
  line: LineValues,
  endpoint: unknown,
  options: unknown,
  defaults: ClientDefaults
): CheckedRequest | InvalidArgument => {
  if (typeof endpoint !== "string") {
    return invalid("endpoint", `must be a string, got ${describe(endpoint)}`)
  }
  const problem = endpointProblem(endpoint)
  if (problem !== undefined) return invalid("endpoint", problem)
  if (!isRecord(options)) return invalid("options", `must be an object, got ${describe(options)}`)
  // each of the three limits: the request's own, checked, or the client's
  const limits = [defaults.timeoutMillis, defaults.totalTimeoutMillis, defaults.idleMillis]
  for (const [i, name] of LIMITS.entries()) {
    if (options[name] !== undefined) {
      const checked = timeoutMillis(line, options[name])
      if (typeof checked === "string") return invalid(`options.${name}`, checked)
      limits[i] = checked
    }
  }
  const [millis, totalMillis, idleMillis] = limits as [number, number, number]
  const attempts = options.retryAttempts
  if (attempts !== undefined && !isCount(attempts)) {
    return invalid("options.retryAttempts", `must be an integer ≥ 0, got ${describe(attempts)}`)
  }
  if (options.signal !== undefined && !isAbortSignal(options.signal)) {
    return invalid("options.signal", `must be an AbortSignal, got ${describe(options.signal)}`)
  }
  if (
    options.schema !== undefined &&
    !line.isSchema(options.schema) &&
    !isStandardSchema(options.schema)
  ) {
    return invalid(
      "options.schema",
      `must be an effect/Schema or a Standard Schema validator, got ${
        // a schema of the other Effect (svc-sdk takes Effect 4's, svc-sdk/v3 Effect 3's)
        typeof options.schema === "function" && "ast" in options.schema
          ? "an effect/Schema of the other Effect line"
          : describe(options.schema)
      }`
    )
  }
  const shared = sharedProblem(line, options)
  if (shared !== undefined) return invalid(`options.${shared[0]}`, shared[1])
  for (const name of PROGRESS_CALLBACKS) {
    if (options[name] !== undefined && typeof options[name] !== "function") {
      return invalid(`options.${name}`, `must be a function, got ${describe(options[name])}`)
    }
  }
  if (options.headers !== undefined) {
    if (!isRecord(options.headers)) {
      return invalid("options.headers", `must be an object, got ${describe(options.headers)}`)
    }
    for (const [name, value] of Object.entries(options.headers)) {
      // an absent value leaves the header out, as in `params`
      if (value === undefined || value === null) continue
      try {
        checkHeader(name, value)
      } catch (cause) {
        return invalid("options.headers", `are invalid: ${(cause as Error).message}`)
      }
    }
  }
  if (options.params !== undefined) {
    if (!isRecord(options.params)) {
      return invalid("options.params", `must be an object, got ${describe(options.params)}`)
    }
    for (const [key, value] of Object.entries(options.params)) {
      const values: ReadonlyArray<unknown> = Array.isArray(value) ? value : [value]
      if (!values.every(isParamValue)) {
        return invalid(
          `options.params.${key}`,
          "must be a string, number, boolean, bigint, valid Date, null or undefined, or an array of them"
        )
      }
    }
  }
  return {
    timeoutMillis: millis,
    totalTimeoutMillis: totalMillis,
    idleMillis,
    retryAttempts: attempts
  }
}
