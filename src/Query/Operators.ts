/**
 * Filter operators for the query builder: each returns `{ operator, value }` (pinned), checked at
 * the call.
 *
 * Values are strings, numbers, booleans, bigints or `Date`s (sent as ISO 8601 strings). Numbers
 * must be finite, Dates valid, strings free of lone surrogates (they cannot travel in a URL).
 *
 * @since 0.1.0
 */

import { OPERATOR_NAMES as NAMES, type OperatorName as Name } from "./internal/operand.js"
import { makeFilter } from "./internal/operators.js"

/**
 * The sixteen operator names, as they appear on the wire in `field[op]=value` (pinned).
 *
 * @since 0.1.0
 * @category models
 */
export type OperatorName = Name

/**
 * The sixteen operator names, in the specification's order.
 *
 * @since 0.1.0
 * @category constants
 */
export const OPERATOR_NAMES: ReadonlyArray<OperatorName> = NAMES

/**
 * A single filter value. A `Date` is sent as `toISOString()`, a boolean as `true`/`false`.
 *
 * @since 0.1.0
 * @category models
 */
export type FilterValue = string | number | boolean | bigint | Date

/**
 * A value with an order, for `gt`/`gte`/`lt`/`lte`/`between`/`notBetween`.
 *
 * @since 0.1.0
 * @category models
 */
export type OrderedValue = string | number | bigint | Date

/**
 * What every operator function returns (pinned shape). Builders accept hand-written values of this
 * shape too, and check them as the functions do.
 *
 * @since 0.1.0
 * @category models
 */
export interface FilterOperator {
  readonly operator: string
  readonly value: unknown
}

/**
 * The precise type an operator function returns.
 *
 * @since 0.1.0
 * @category models
 */
export interface Filter<Op extends OperatorName, V> extends FilterOperator {
  readonly operator: Op
  readonly value: V
}

/**
 * Equality: `field=value` on the wire (the same as `where(field, value)`).
 *
 * @since 0.1.0
 * @category operators
 */
export const eq = (value: FilterValue): Filter<"eq", FilterValue> =>
  makeFilter("eq", value, "eq", "value")

/**
 * Not equal: `field[ne]=value`.
 *
 * @since 0.1.0
 * @category operators
 */
export const ne = (value: FilterValue): Filter<"ne", FilterValue> =>
  makeFilter("ne", value, "ne", "value")

/**
 * Greater than: `field[gt]=value`.
 *
 * @since 0.1.0
 * @category operators
 */
export const gt = (value: OrderedValue): Filter<"gt", OrderedValue> =>
  makeFilter("gt", value, "gt", "value")

/**
 * Greater than or equal: `field[gte]=value`.
 *
 * @since 0.1.0
 * @category operators
 */
export const gte = (value: OrderedValue): Filter<"gte", OrderedValue> =>
  makeFilter("gte", value, "gte", "value")

/**
 * Less than: `field[lt]=value`.
 *
 * @since 0.1.0
 * @category operators
 */
export const lt = (value: OrderedValue): Filter<"lt", OrderedValue> =>
  makeFilter("lt", value, "lt", "value")

/**
 * Less than or equal: `field[lte]=value`.
 *
 * @since 0.1.0
 * @category operators
 */
export const lte = (value: OrderedValue): Filter<"lte", OrderedValue> =>
  makeFilter("lte", value, "lte", "value")

/**
 * Pattern match, case-sensitive: `field[like]=pattern`. The pattern is sent as given (the server
 * decides what `%` and `_` mean).
 *
 * @since 0.1.0
 * @category operators
 */
export const like = (pattern: string): Filter<"like", string> =>
  makeFilter("like", pattern, "like", "pattern")

/**
 * Pattern match, case-insensitive: `field[ilike]=pattern`.
 *
 * @since 0.1.0
 * @category operators
 */
export const ilike = (pattern: string): Filter<"ilike", string> =>
  makeFilter("ilike", pattern, "ilike", "pattern")

/**
 * Prefix match: `field[startsWith]=prefix`.
 *
 * @since 0.1.0
 * @category operators
 */
export const startsWith = (prefix: string): Filter<"startsWith", string> =>
  makeFilter("startsWith", prefix, "startsWith", "prefix")

/**
 * Suffix match: `field[endsWith]=suffix`.
 *
 * @since 0.1.0
 * @category operators
 */
export const endsWith = (suffix: string): Filter<"endsWith", string> =>
  makeFilter("endsWith", suffix, "endsWith", "suffix")

/**
 * Membership: `field[in]=a,b,c` (operator name `in`, pinned). The list must be non-empty (an empty
 * list matches nothing: send no filter instead) and no element may contain `,` — `,` separates the
 * values on the wire, so such an element is a `RangeError` rather than a silently different list.
 * The array is copied.
 *
 * @since 0.1.0
 * @category operators
 */
export const inOp = (
  values: ReadonlyArray<FilterValue>
): Filter<"in", ReadonlyArray<FilterValue>> => makeFilter("in", copy(values), "inOp", "values")

/**
 * Non-membership: `field[notIn]=a,b,c`, with the same rules as {@link inOp}.
 *
 * @since 0.1.0
 * @category operators
 */
export const notIn = (
  values: ReadonlyArray<FilterValue>
): Filter<"notIn", ReadonlyArray<FilterValue>> =>
  makeFilter("notIn", copy(values), "notIn", "values")

/**
 * Is null: `field[isNull]=true`.
 *
 * @since 0.1.0
 * @category operators
 */
export const isNull = (): Filter<"isNull", true> => ({ operator: "isNull", value: true })

/**
 * Is not null: `field[isNotNull]=true`.
 *
 * @since 0.1.0
 * @category operators
 */
export const isNotNull = (): Filter<"isNotNull", true> => ({ operator: "isNotNull", value: true })

/**
 * Inclusive range: `field[between]=min,max`, value `[min, max]` (pinned). `min` and `max` must have
 * the same type (numbers, bigints, strings or Dates) and `min <= max` (strings compare by UTF-16
 * code units, as `<` does), else a `RangeError`. Strings must not contain `,`.
 *
 * @since 0.1.0
 * @category operators
 */
export const between = <V extends OrderedValue>(
  min: V,
  max: V
): Filter<"between", readonly [V, V]> =>
  makeFilter("between", [min, max] as const, "between", "value")

/**
 * Outside an inclusive range: `field[notBetween]=min,max`, with the rules of {@link between}.
 *
 * @since 0.1.0
 * @category operators
 */
export const notBetween = <V extends OrderedValue>(
  min: V,
  max: V
): Filter<"notBetween", readonly [V, V]> =>
  makeFilter("notBetween", [min, max] as const, "notBetween", "value")

const copy = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> =>
  Array.isArray(values) ? values.slice() : values
