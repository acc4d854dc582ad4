/**
 * Reads a query string in the builder's wire format back into filters, search, paging, sort and
 * custom parameters.
 */
import { isRecord } from "../../core/describe.js"
import { QueryParseError } from "../QueryParseError.js"
import {
  describeType,
  isOperatorName,
  isReservedName,
  OPERAND_KIND,
  type OperatorName
} from "./operand.js"
import { quoted } from "./quote.js"

export type ParsedFilter =
  | {
      readonly field: string
      readonly operator: Exclude<
        OperatorName,
        "in" | "notIn" | "between" | "notBetween" | "isNull" | "isNotNull"
      >
      readonly value: string
    }
  | {
      readonly field: string
      readonly operator: "in" | "notIn"
      readonly value: ReadonlyArray<string>
    }
  | {
      readonly field: string
      readonly operator: "between" | "notBetween"
      readonly value: readonly [string, string]
    }
  | { readonly field: string; readonly operator: "isNull" | "isNotNull"; readonly value: true }

export interface ParsedSort {
  readonly field: string
  readonly direction: "asc" | "desc"
}

export interface ParsedQuery {
  readonly filters: ReadonlyArray<ParsedFilter>
  readonly search?: string
  readonly page?: number
  readonly limit?: number
  readonly offset?: number
  readonly sort: ReadonlyArray<ParsedSort>
  readonly params: Readonly<Record<string, string | ReadonlyArray<string>>>
}

export type ParseInput =
  | string
  | URLSearchParams
  | URL
  | Readonly<Record<string, string | ReadonlyArray<string>>>

export interface ParseOptions {
  readonly params?: Iterable<string> | undefined
}

interface Accumulator {
  readonly filters: Array<ParsedFilter>
  readonly sort: Array<ParsedSort>
  readonly params: Map<string, Array<string>>
  readonly paramNames: ReadonlySet<string>
  search?: string
  page?: number
  limit?: number
  offset?: number
  sorted: boolean
}

const fail = (reason: QueryParseError["reason"], key: string, detail: string): never => {
  throw new QueryParseError({ reason, key, detail })
}

const integer = (key: string, value: string, min: number): number => {
  let ok = value.length > 0 && value.length <= 16
  for (let i = 0; ok && i < value.length; i++) {
    const c = value.charCodeAt(i)
    ok = c >= 48 && c <= 57
  }
  const n = ok ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(n) || n < min) fail("InvalidValue", key, `must be an integer >= ${min}`)
  return n
}

const readSort = (acc: Accumulator, value: string): void => {
  for (const entry of value.split(",")) {
    const desc = entry.charCodeAt(0) === 45
    const field = desc ? entry.slice(1) : entry
    if (field.length === 0) fail("InvalidValue", "sort", "a sort field is empty")
    acc.sort.push({ field, direction: desc ? "desc" : "asc" })
  }
  acc.sorted = true
}

const readReserved = (acc: Accumulator, key: string, value: string): void => {
  const seen =
    key === "sort" ? acc.sorted : acc[key as "search" | "page" | "limit" | "offset"] !== undefined
  if (seen) fail("DuplicateKey", key, "given more than once")
  switch (key) {
    case "search":
      acc.search = value
      return
    case "page":
      acc.page = integer(key, value, 1)
      return
    case "limit":
      acc.limit = integer(key, value, 1)
      return
    case "offset":
      acc.offset = integer(key, value, 0)
      return
    default:
      readSort(acc, value)
  }
}

const filterOf = (
  key: string,
  field: string,
  operator: OperatorName,
  value: string
): ParsedFilter => {
  switch (OPERAND_KIND[operator]) {
    case "list":
      return { field, operator: operator as "in", value: value.split(",") }
    case "range": {
      const bounds = value.split(",")
      if (bounds.length !== 2) fail("InvalidValue", key, "expects two values: min,max")
      return { field, operator: operator as "between", value: [bounds[0]!, bounds[1]!] }
    }
    case "flag":
      if (value !== "true") fail("InvalidValue", key, 'expects the value "true"')
      return { field, operator: operator as "isNull", value: true }
    default:
      return { field, operator: operator as "eq", value }
  }
}

const readPair = (acc: Accumulator, key: string, value: string): void => {
  if (isReservedName(key)) {
    readReserved(acc, key, value)
    return
  }
  if (acc.paramNames.has(key)) {
    const values = acc.params.get(key)
    if (values === undefined) acc.params.set(key, [value])
    else values.push(value)
    return
  }
  const open = key.indexOf("[")
  if (open === -1) {
    if (key.length === 0) fail("MalformedKey", key, "the name is empty")
    if (key.includes("]")) fail("MalformedKey", key, 'has "]" without "["')
    acc.filters.push({ field: key, operator: "eq", value })
    return
  }
  const field = key.slice(0, open)
  const operator = key.slice(open + 1, -1)
  if (open === 0 || !key.endsWith("]") || field.includes("]") || /[[\]]/.test(operator)) {
    fail("MalformedKey", key, "expected field[operator]")
  }
  if (isReservedName(field) || acc.paramNames.has(field)) {
    fail("MalformedKey", key, `${quoted(field)} takes no operator`)
  }
  if (!isOperatorName(operator))
    fail("UnknownOperator", key, `unknown operator ${quoted(operator)}`)
  acc.filters.push(filterOf(key, field, operator as OperatorName, value))
}

const forEachPair = (input: ParseInput, f: (key: string, value: string) => void): void => {
  const params =
    typeof input === "string"
      ? new URLSearchParams(input)
      : input instanceof URL
        ? input.searchParams
        : input instanceof URLSearchParams
          ? input
          : undefined
  if (params !== undefined) {
    for (const [key, value] of params) f(key, value)
  } else if (isRecord(input)) {
    for (const key of Object.keys(input)) {
      const value: unknown = (input as Readonly<Record<string, unknown>>)[key]
      if (isParsedObject(value) && Object.keys(value).length > 0) {
        // `field[op]=v` as a nesting parser (Express 4's `qs`) reads it: { field: { op: v } }
        for (const operator of Object.keys(value)) {
          recordValue(`${key}[${operator}]`, value[operator], f)
        }
      } else recordValue(key, value, f)
    }
  } else {
    throw new TypeError(
      `parse: input must be a string, URLSearchParams, URL or record, got ${describeType(input)}`
    )
  }
}

/** An object as a query parser makes them: plain, or without a prototype (`qs`'s `plainObjects`). */
const isParsedObject = (value: unknown): value is Readonly<Record<string, unknown>> => {
  if (!isRecord(value)) return false
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/**
 * A record's value: a string or strings. What else a parser makes of the query string (a value
 * nested deeper, as `qs` makes of `a[b][c]=1` or `a[0][b]=1`) is a key the format cannot read; any
 * other value (a number, a `Date`, a class's instance) is not a parsed query at all.
 */
const recordValue = (
  key: string,
  value: unknown,
  f: (key: string, value: string) => void
): void => {
  if (typeof value === "string") {
    f(key, value)
    return
  }
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
    for (const v of value) f(key, v)
    return
  }
  const deeper = (v: unknown) => isParsedObject(v) || Array.isArray(v)
  if (isParsedObject(value) || (Array.isArray(value) && value.some(deeper))) {
    fail("MalformedKey", key, "a value nested deeper than field[operator]")
  }
  throw new TypeError(
    `parse: input[${quoted(key)}] must be a string or an array of strings, got ${describeType(value)}`
  )
}

export const parse = (input: ParseInput, options?: ParseOptions): ParsedQuery => {
  const paramNames = new Set<string>()
  if (options?.params !== undefined) {
    // a string is iterable too, letter by letter: `params: "include"` would name "i", "n", …
    if (typeof options.params === "string") {
      throw new TypeError(
        `parse: options.params must be a list of parameter names (["${options.params}"]), not a string`
      )
    }
    for (const name of options.params) {
      if (typeof name !== "string" || isReservedName(name)) {
        throw new TypeError(
          `parse: options.params must hold parameter names other than search, page, limit, offset and sort`
        )
      }
      paramNames.add(name)
    }
  }
  const acc: Accumulator = {
    filters: [],
    sort: [],
    params: new Map(),
    paramNames,
    sorted: false
  }
  forEachPair(input, (key, value) => readPair(acc, key, value))
  const params = Object.fromEntries(
    Array.from(acc.params, ([name, values]) => [name, values.length === 1 ? values[0]! : values])
  )
  return {
    filters: acc.filters,
    ...(acc.search === undefined ? {} : { search: acc.search }),
    ...(acc.page === undefined ? {} : { page: acc.page }),
    ...(acc.limit === undefined ? {} : { limit: acc.limit }),
    ...(acc.offset === undefined ? {} : { offset: acc.offset }),
    sort: acc.sort,
    params
  }
}

/** A decimal number as text (each digit can be read one way only: linear time on any input). */
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/

export const asNumber = (value: string, name: string): number => {
  const n = DECIMAL.test(value) ? Number(value) : Number.NaN
  if (!Number.isFinite(n)) fail("InvalidValue", name, "must be a number")
  return n
}

export const asBigInt = (value: string, name: string): bigint => {
  if (!/^-?\d+$/.test(value)) fail("InvalidValue", name, "must be an integer")
  return BigInt(value)
}

export const asBoolean = (value: string, name: string): boolean => {
  if (value !== "true" && value !== "false") fail("InvalidValue", name, 'must be "true" or "false"')
  return value === "true"
}

export const asDate = (value: string, name: string): Date => {
  const date = new Date(value)
  if (value.length === 0 || Number.isNaN(date.getTime()))
    fail("InvalidValue", name, "must be a date")
  return date
}
