/**
 * The error of `parse` for a query string that the query format cannot read: answer it with 400.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import { quoted } from "./internal/quote.js"

/**
 * Why the query could not be read:
 * - `MalformedKey`: a key like `a[`, `[gte]`, `a]`, `a[b][c]`, an empty key, an operator on a
 *   reserved name (`page[gte]`) or on a declared custom parameter;
 * - `UnknownOperator`: `field[op]` with an `op` that is not one of the sixteen;
 * - `InvalidValue`: `page`/`limit` not an integer >= 1, `offset` not an integer >= 0, an empty
 *   sort field, `between` without exactly two values, `isNull` with a value other than `true`, or a
 *   failed coercion (`asNumber`, …);
 * - `DuplicateKey`: `search`, `page`, `limit`, `offset` or `sort` given twice.
 *
 * @since 0.1.0
 * @category errors
 */
export type QueryParseErrorReason =
  | "MalformedKey"
  | "UnknownOperator"
  | "InvalidValue"
  | "DuplicateKey"

/**
 * A query parameter that does not follow the query format. `key` is the parameter's name; the
 * message names it (escaped, and cut at 64 characters) and says what is wrong, and never repeats
 * the value.
 *
 * @since 0.1.0
 * @category errors
 */
export class QueryParseError extends Data.TaggedError("QueryParseError")<{
  readonly reason: QueryParseErrorReason
  readonly key: string
  readonly detail: string
}> {
  /** @since 0.1.0 */
  override get message(): string {
    return `Invalid query parameter ${quoted(this.key)}: ${this.detail}`
  }
}
