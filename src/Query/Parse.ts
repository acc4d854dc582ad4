/**
 * The inverse of the query builder, for servers: reads a query string back into filters, search,
 * paging, sort and custom parameters.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/parse.js"

/**
 * One filter as read from the wire. Values are strings (the wire has no types; use
 * {@link asNumber}, {@link asBoolean}, {@link asDate}, {@link asBigInt} to coerce): a list for
 * `in`/`notIn`, a `[min, max]` pair for `between`/`notBetween`, and `true` for `isNull`/`isNotNull`
 * (the same value `isNull()` holds).
 *
 * @since 0.1.0
 * @category models
 */
export type ParsedFilter = internal.ParsedFilter

/**
 * One sort key, in the order given.
 *
 * @since 0.1.0
 * @category models
 */
export type ParsedSort = internal.ParsedSort

/**
 * What a query holds. `search`, `page`, `limit` and `offset` are absent when not given (and
 * `search` is `""` for `search=`). `params` holds the declared custom parameters (see
 * {@link ParseOptions}): a string for one occurrence, an array when the name repeats — so a builder's
 * `param("a", ["x"])` reads back as `"x"`, the same wire text as `param("a", "x")`.
 *
 * @since 0.1.0
 * @category models
 */
export type ParsedQuery = internal.ParsedQuery

/**
 * A query: a query string (a leading `?` is allowed; it is not a URL — pass a `URL` for that),
 * `URLSearchParams`, a `URL`, or a record of strings / string arrays (e.g. a framework's parsed
 * query; keys are read in `Object.keys` order). A nesting parser's `{ age: { gte: "18" } }` (Express
 * 4's `qs` reading `age[gte]=18`) reads as `age[gte]`, and anything nested deeper is a
 * `QueryParseError`. Such a parser also reads `a[]=1` and `a[0]=1` as `a=1`, which the query string
 * itself refuses: give `parse` the query string where you can.
 *
 * @since 0.1.0
 * @category models
 */
export type ParseInput = internal.ParseInput

/**
 * On the wire, a custom parameter `include=author` looks exactly like an equality filter. `params`
 * names the custom parameters the server accepts; every other plain `name=value` is an equality
 * filter.
 *
 * @since 0.1.0
 * @category models
 */
export interface ParseOptions {
  readonly params?: Iterable<string> | undefined
}

/**
 * Reads a query. For any builder `b` whose custom parameters are named in `options.params`,
 * `parse(b.toQueryString(), options)` gives back the filters (in order, values as strings), search,
 * page, limit, offset, sort keys and parameters that `b` holds. A key or value the format cannot
 * read throws a {@link QueryParseError} (answer 400); bad `input` or `options` a `TypeError`.
 *
 * @example
 * ```ts
 * import { parse } from "svc-sdk/Query"
 *
 * parse("status=active&age[gte]=18&page=2&sort=-created_at&include=author", { params: ["include"] })
 * // { filters: [{ field: "status", operator: "eq", value: "active" },
 * //             { field: "age", operator: "gte", value: "18" }],
 * //   page: 2, sort: [{ field: "created_at", direction: "desc" }], params: { include: "author" } }
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse: (input: ParseInput, options?: ParseOptions) => ParsedQuery = internal.parse

/**
 * A decimal number (`"18"`, `"-1.5"`, `"1e+21"`), else a `QueryParseError` naming `name`.
 *
 * @since 0.1.0
 * @category coercion
 */
export const asNumber = (value: string, name = "value"): number => internal.asNumber(value, name)

/**
 * A decimal integer as a bigint, else a `QueryParseError` naming `name`.
 *
 * @since 0.1.0
 * @category coercion
 */
export const asBigInt = (value: string, name = "value"): bigint => internal.asBigInt(value, name)

/**
 * `"true"` or `"false"`, else a `QueryParseError` naming `name`.
 *
 * @since 0.1.0
 * @category coercion
 */
export const asBoolean = (value: string, name = "value"): boolean => internal.asBoolean(value, name)

/**
 * A date the `Date` constructor reads (the builder sends ISO 8601), else a `QueryParseError`
 * naming `name`.
 *
 * @since 0.1.0
 * @category coercion
 */
export const asDate = (value: string, name = "value"): Date => internal.asDate(value, name)
