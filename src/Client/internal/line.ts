/**
 * What only this Effect line knows about the values a caller gives, for the shared checks
 * (`core/options.ts`): its `Duration` inputs, `Schedule`s and `Schema`s.
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import type { LineValues } from "../../core/options.js"

/** Effect 4's `Schema` type id: a string key whose value is itself. */
const schemaTypeId = "~effect/Schema/Schema"

export const line: LineValues = {
  durationMillis: (value) => {
    const decoded = Duration.fromInput(value as Duration.Input)
    return Option.isSome(decoded) ? Duration.toMillis(decoded.value) : undefined
  },
  isSchedule: Schedule.isSchedule,
  // by its type id, as `Schema.isSchema` tests it, without importing effect/Schema: a facade that
  // never decodes does not bundle it
  isSchema: (value) =>
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    (value as { readonly [schemaTypeId]?: unknown })[schemaTypeId] === schemaTypeId
}
