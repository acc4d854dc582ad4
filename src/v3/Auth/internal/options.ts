import * as Duration from "effect/Duration"
import { describe } from "../../../core/describe.js"

export { describe }

/** A non-negative, finite `Duration`, or a `RangeError` naming the argument. */
export const durationOption = (
  name: string,
  value: Duration.DurationInput | undefined,
  fallback: Duration.Duration
): Duration.Duration => {
  if (value === undefined) return fallback
  const decoded = Duration.decodeUnknown(value)
  if (decoded._tag === "None" || !Duration.isFinite(decoded.value) || isNegative(value)) {
    throw new RangeError(`${name} must be a finite, non-negative duration, got ${describe(value)}`)
  }
  return decoded.value
}

const isNegative = (value: Duration.DurationInput): boolean =>
  typeof value === "number"
    ? !(value >= 0)
    : typeof value === "bigint"
      ? value < 0n
      : typeof value === "string" && value.trimStart().startsWith("-")

/** A non-empty string, or an error naming the argument. */
export const nameOption = (name: string, value: unknown, fallback: string): string => {
  if (value === undefined) return fallback
  if (typeof value !== "string")
    throw new TypeError(`${name} must be a string, got ${describe(value)}`)
  if (value.length === 0) throw new RangeError(`${name} must not be empty`)
  return value
}

/** A positive integer, or a `RangeError` naming the argument. */
export const positiveIntegerOption = (name: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${describe(value)}`)
  }
  return value
}
