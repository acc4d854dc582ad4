/**
 * What only this Effect line knows about the values a caller gives, for the shared checks
 * (`core/options.ts`): its `Duration` inputs, `Schedule`s and `Schema`s.
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { LineValues } from "../../../core/options.js"

export const line: LineValues = {
  durationMillis: (value) => {
    const decoded = Duration.decodeUnknown(value)
    return Option.isSome(decoded) ? Duration.toMillis(decoded.value) : undefined
  },
  isSchedule: Schedule.isSchedule,
  // by its symbol, without importing effect/Schema: a facade that never decodes does not bundle it
  isSchema: (value) =>
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    Symbol.for("effect/Schema") in value
}
