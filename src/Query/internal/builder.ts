/**
 * The state of a query builder and the functions that change and read it. Every value is checked
 * and percent-encoded when it is given; serializing is concatenation in the pinned order.
 */
import { isRecord } from "../../core/describe.js"
import { checkHeader } from "../../core/headers.js"
import type { HttpMethod } from "../../core/http.js"
import type { QueryRequest } from "../QueryBuilder.js"
import {
  describeType,
  encode,
  encodeOperand,
  isOperatorName,
  isReservedName,
  OPERAND_KIND
} from "./operand.js"

export type ParamValue = string | number | boolean | bigint | Date

export interface BuilderState {
  readonly endpoint: string
  /** Encoded `field=value` / `field[op]=value` pairs, in call order. */
  readonly filters: Array<string>
  /** The raw field names of `filters`, to keep them apart from custom parameter names. */
  readonly fields: Set<string>
  search: string | undefined
  page: string | undefined
  limit: string | undefined
  offset: string | undefined
  /** Encoded sort entries (`field` or `-field`), in call order. */
  readonly sorts: Array<string>
  /** Custom parameter name → encoded `name=value` pairs (several for an array); made on first use. */
  params: Map<string, string> | undefined
  /** Lower-cased header name → [name as given, value]; made on first use. */
  headers: Map<string, readonly [string, string]> | undefined
}

export const makeState = (endpoint: unknown): BuilderState => {
  if (typeof endpoint !== "string") {
    throw new TypeError(`QueryBuilder: endpoint must be a string, got ${describeType(endpoint)}`)
  }
  return {
    endpoint,
    filters: [],
    fields: new Set(),
    search: undefined,
    page: undefined,
    limit: undefined,
    offset: undefined,
    sorts: [],
    params: undefined,
    headers: undefined
  }
}

const checkName = (name: unknown, where: string, arg: string): string => {
  if (typeof name !== "string") {
    throw new TypeError(`${where}: ${arg} must be a string, got ${describeType(name)}`)
  }
  if (name.length === 0) throw new RangeError(`${where}: ${arg} must not be empty`)
  if (isReservedName(name)) {
    throw new RangeError(
      `${where}: ${arg} "${name}" is reserved by the query format (search, page, limit, offset, sort); use the builder method of that name`
    )
  }
  if (name.includes("[") || name.includes("]")) {
    throw new RangeError(`${where}: ${arg} must not contain "[" or "]" (they mark operators)`)
  }
  return encode(name, where, arg)
}

const isFilterOperatorLike = (value: unknown): value is { operator: unknown; value: unknown } =>
  typeof value === "object" &&
  value !== null &&
  !Array.isArray(value) &&
  !(value instanceof Date) &&
  "operator" in value

/**
 * Adds a filter. `args` is `[value]`, `[filterOperator]` or `[operatorName, value]`.
 */
export const addFilter = (
  state: BuilderState,
  field: unknown,
  args: ReadonlyArray<unknown>,
  where: string
): void => {
  const key = checkName(field, where, "field")
  if (state.params?.has(field as string)) {
    throw new RangeError(
      `${where}: field "${field as string}" is already a custom parameter; a name cannot be both`
    )
  }
  let operator: unknown = "eq"
  let value: unknown
  if (args.length === 1) {
    value = args[0]
    if (isFilterOperatorLike(value)) {
      operator = value.operator
      value = value.value
    }
  } else if (args.length === 2) {
    operator = args[0]
    value = args[1]
  } else {
    throw new TypeError(
      `${where}: expected (field, value), (field, operator) or (field, operatorName, value), got ${args.length + 1} arguments`
    )
  }
  if (!isOperatorName(operator)) {
    throw new TypeError(
      `${where}: operator must be one of eq, ne, gt, gte, lt, lte, like, ilike, startsWith, endsWith, in, notIn, isNull, isNotNull, between, notBetween; got ${typeof operator === "string" ? `"${operator}"` : describeType(operator)}`
    )
  }
  const encoded = encodeOperand(OPERAND_KIND[operator], value, where, "value")
  state.filters.push(operator === "eq" ? `${key}=${encoded}` : `${key}[${operator}]=${encoded}`)
  state.fields.add(field as string)
}

export const setSearch = (state: BuilderState, text: unknown, where: string): void => {
  if (typeof text !== "string") {
    throw new TypeError(`${where}: text must be a string, got ${describeType(text)}`)
  }
  state.search = text.length === 0 ? undefined : `search=${encode(text, where, "text")}`
}

/** `value` as the decimal text of a safe integer `>= min`. */
export const checkInteger = (value: unknown, min: number, where: string, arg: string): string => {
  if (typeof value !== "number") {
    throw new TypeError(`${where}: ${arg} must be a number, got ${describeType(value)}`)
  }
  if (!Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`${where}: ${arg} must be an integer >= ${min}, got ${value}`)
  }
  return String(value)
}

export const addSort = (
  state: BuilderState,
  field: unknown,
  direction: unknown,
  where: string
): void => {
  if (typeof field !== "string") {
    throw new TypeError(`${where}: field must be a string, got ${describeType(field)}`)
  }
  if (field.length === 0) throw new RangeError(`${where}: field must not be empty`)
  if (field.includes(",")) {
    throw new RangeError(`${where}: field must not contain "," (it separates sort fields)`)
  }
  if (field.charCodeAt(0) === 45) {
    throw new RangeError(
      `${where}: field must not start with "-" (it marks descending order); pass direction "desc"`
    )
  }
  if (direction !== "asc" && direction !== "desc") {
    throw new TypeError(
      `${where}: direction must be "asc" or "desc", got ${typeof direction === "string" ? `"${direction}"` : describeType(direction)}`
    )
  }
  const encoded = encode(field, where, "field")
  state.sorts.push(direction === "desc" ? `-${encoded}` : encoded)
}

export const setParam = (
  state: BuilderState,
  name: unknown,
  value: unknown,
  where: string
): void => {
  const key = checkName(name, where, "name")
  if (state.fields.has(name as string)) {
    throw new RangeError(
      `${where}: name "${name as string}" is already a filter field; a name cannot be both`
    )
  }
  state.params ??= new Map()
  const params = state.params
  if (value === undefined || value === null) {
    params.delete(name as string)
    return
  }
  if (!Array.isArray(value)) {
    params.set(name as string, `${key}=${encodeOperand("scalar", value, where, "value")}`)
    return
  }
  if (value.length === 0) {
    params.delete(name as string)
    return
  }
  let pairs = ""
  for (let i = 0; i < value.length; i++) {
    const pair = `${key}=${encodeOperand("scalar", value[i], where, `value[${i}]`)}`
    pairs = i === 0 ? pair : `${pairs}&${pair}`
  }
  params.set(name as string, pairs)
}

export const setParams = (state: BuilderState, record: unknown, where: string): void => {
  if (!isRecord(record)) {
    throw new TypeError(`${where}: params must be a plain object, got ${describeType(record)}`)
  }
  for (const name of Object.keys(record)) {
    setParam(state, name, (record as Record<string, unknown>)[name], where)
  }
}

export const setHeader = (
  state: BuilderState,
  name: unknown,
  value: unknown,
  where: string
): void => {
  try {
    checkHeader(name, value)
  } catch (cause) {
    throw new TypeError(`${where}: ${(cause as Error).message}`)
  }
  const checked = name as string
  state.headers ??= new Map()
  state.headers.set(checked.toLowerCase(), [checked, value as string])
}

export const setHeaders = (state: BuilderState, record: unknown, where: string): void => {
  if (!isRecord(record)) {
    throw new TypeError(`${where}: headers must be a plain object, got ${describeType(record)}`)
  }
  for (const name of Object.keys(record)) {
    setHeader(state, name, (record as Record<string, unknown>)[name], where)
  }
}

/** The query string in the pinned order: filters, search, page, limit, offset, sort, params. */
export const toQueryString = (state: BuilderState): string => {
  let out = ""
  const filters = state.filters
  for (let i = 0; i < filters.length; i++) out = i === 0 ? filters[0]! : `${out}&${filters[i]}`
  if (state.search !== undefined) out = out === "" ? state.search : `${out}&${state.search}`
  if (state.page !== undefined) out = `${out === "" ? "" : `${out}&`}page=${state.page}`
  if (state.limit !== undefined) out = `${out === "" ? "" : `${out}&`}limit=${state.limit}`
  if (state.offset !== undefined) out = `${out === "" ? "" : `${out}&`}offset=${state.offset}`
  const sorts = state.sorts
  if (sorts.length > 0) {
    let sort = sorts[0]!
    for (let i = 1; i < sorts.length; i++) sort = `${sort},${sorts[i]}`
    out = `${out === "" ? "" : `${out}&`}sort=${sort}`
  }
  if (state.params !== undefined) {
    for (const pairs of state.params.values()) out = out === "" ? pairs : `${out}&${pairs}`
  }
  return out
}

/**
 * `endpoint?query`; `&` instead of `?` when the endpoint already has a query; nothing added for an
 * empty query. A `#fragment` on the endpoint stays at the end.
 */
export const toURL = (state: BuilderState): string => {
  const query = toQueryString(state)
  if (query === "") return state.endpoint
  const hash = state.endpoint.indexOf("#")
  const base = hash === -1 ? state.endpoint : state.endpoint.slice(0, hash)
  const fragment = hash === -1 ? "" : state.endpoint.slice(hash)
  const q = base.indexOf("?")
  if (q === -1) return `${base}?${query}${fragment}`
  // a parameter the builder sets replaces the endpoint's own: a server reads the first of two
  const names = new Set(new URLSearchParams(query).keys())
  const kept = base
    .slice(q + 1)
    .split("&")
    .filter((entry) => entry !== "" && !names.has([...new URLSearchParams(entry).keys()][0]!))
  return `${base.slice(0, q)}?${[...kept, query].join("&")}${fragment}`
}

export const toRequest = (state: BuilderState, method: HttpMethod, body: unknown): QueryRequest => {
  const headers: Record<string, string> = Object.fromEntries(state.headers?.values() ?? [])
  const request = { method, url: toURL(state), headers }
  return body === undefined ? request : { ...request, body }
}
