/**
 * The query builder, its filter operators, and `parse`, its inverse for servers.
 *
 * @since 0.1.0
 * @module svc-sdk/Query
 */

export type {
  Filter,
  FilterOperator,
  FilterValue,
  OperatorName,
  OrderedValue
} from "./Operators.js"
export {
  between,
  endsWith,
  eq,
  gt,
  gte,
  ilike,
  inOp,
  isNotNull,
  isNull,
  like,
  lt,
  lte,
  ne,
  notBetween,
  notIn,
  OPERATOR_NAMES,
  startsWith
} from "./Operators.js"
export type {
  ParsedFilter,
  ParsedQuery,
  ParsedSort,
  ParseInput,
  ParseOptions
} from "./Parse.js"
export { asBigInt, asBoolean, asDate, asNumber, parse } from "./Parse.js"
export type {
  HttpMethod,
  OperatorValues,
  ParamValue,
  QueryExecutor,
  QueryRequest,
  QueryResult,
  QueryResultKind
} from "./QueryBuilder.js"
export { QueryBuilder, query } from "./QueryBuilder.js"
export type { QueryParseErrorReason } from "./QueryParseError.js"
export { QueryParseError } from "./QueryParseError.js"
