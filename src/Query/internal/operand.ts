/**
 * Validation and percent-encoding of filter values. Every value is checked and encoded once, when it
 * is given, so that serializing a builder is plain concatenation.
 */

import { describe } from "../../core/describe.js"

/** The operator names, in the order of the specification. */
export const OPERATOR_NAMES = [
  "eq",
  "ne",
  "gt",
  "gte",
  "lt",
  "lte",
  "like",
  "ilike",
  "startsWith",
  "endsWith",
  "in",
  "notIn",
  "isNull",
  "isNotNull",
  "between",
  "notBetween"
] as const

export type OperatorName = (typeof OPERATOR_NAMES)[number]

/**
 * What an operator's value looks like:
 * - `scalar`: one string, number, boolean, bigint or Date;
 * - `ordered`: one string, number, bigint or Date (something with an order);
 * - `text`: one string;
 * - `list`: a non-empty array of scalars, joined with `,`;
 * - `range`: `[min, max]` of one ordered type with `min <= max`, joined with `,`;
 * - `flag`: no value; `true` on the wire.
 */
export type OperandKind = "scalar" | "ordered" | "text" | "list" | "range" | "flag"

export const OPERAND_KIND: Readonly<Record<OperatorName, OperandKind>> = {
  eq: "scalar",
  ne: "scalar",
  gt: "ordered",
  gte: "ordered",
  lt: "ordered",
  lte: "ordered",
  like: "text",
  ilike: "text",
  startsWith: "text",
  endsWith: "text",
  in: "list",
  notIn: "list",
  isNull: "flag",
  isNotNull: "flag",
  between: "range",
  notBetween: "range"
}

/** Names that the wire format uses for itself: no filter or custom parameter may take them. */
export const isReservedName = (name: string): boolean => {
  switch (name) {
    case "search":
    case "page":
    case "limit":
    case "offset":
    case "sort":
      return true
    default:
      return false
  }
}

export const isOperatorName = (name: unknown): name is OperatorName =>
  typeof name === "string" && Object.hasOwn(OPERAND_KIND, name)

/**
 * A short description of a value's type for error messages, never the value itself: an object by
 * its class, as the client names it (`a Date`, `a Map`, `an array`, `null`), else `a string`.
 */
export const describeType = (value: unknown): string =>
  typeof value === "object" || value === undefined ? describe(value) : `a ${typeof value}`

/** 1 for the ASCII characters `encodeURIComponent` leaves as they are. */
const UNRESERVED = new Uint8Array(128)
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()") {
  UNRESERVED[c.charCodeAt(0)] = 1
}

const encodeAll = (text: string, where: string, arg: string): string => {
  try {
    return encodeURIComponent(text)
  } catch {
    throw new RangeError(`${where}: ${arg} contains a lone surrogate and cannot be sent in a URL`)
  }
}

/**
 * `encodeURIComponent`, but a lone surrogate (which cannot be encoded, and which `URLSearchParams`
 * would turn into U+FFFD) is a `RangeError` naming the argument instead of a `URIError`. Text that
 * needs no encoding (most names and values) is returned after one scan.
 */
export const encode = (text: string, where: string, arg: string): string => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 128 || UNRESERVED[c] === 0) return encodeAll(text, where, arg)
  }
  return text
}

const scalarText = (value: unknown, where: string, arg: string, ordered: boolean): string => {
  switch (typeof value) {
    case "string":
      return value
    case "number":
      if (!Number.isFinite(value)) throw new RangeError(`${where}: ${arg} must be a finite number`)
      return String(value)
    case "bigint":
      return String(value)
    case "boolean":
      if (!ordered) return value ? "true" : "false"
      break
    case "object":
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime()))
          throw new RangeError(`${where}: ${arg} is an invalid Date`)
        return value.toISOString()
      }
  }
  const accepted = ordered
    ? "a string, number, bigint or Date"
    : "a string, number, boolean, bigint or Date"
  throw new TypeError(`${where}: ${arg} must be ${accepted}, got ${describeType(value)}`)
}

const listElement = (value: unknown, where: string, arg: string): string => {
  const text = scalarText(value, where, arg, false)
  if (text.includes(",")) {
    throw new RangeError(
      `${where}: ${arg} contains ",", which separates list values on the wire; use one filter per value or a different operator`
    )
  }
  return encode(text, where, arg)
}

const orderKey = (value: unknown): string =>
  value instanceof Date ? "date" : typeof value === "object" ? "object" : typeof value

const encodeList = (value: unknown, where: string, arg: string): string => {
  if (!Array.isArray(value)) {
    throw new TypeError(`${where}: ${arg} must be an array, got ${describeType(value)}`)
  }
  if (value.length === 0) {
    throw new RangeError(`${where}: ${arg} must not be empty (an empty list matches nothing)`)
  }
  let out = listElement(value[0], where, `${arg}[0]`)
  for (let i = 1; i < value.length; i++) out += `,${listElement(value[i], where, `${arg}[${i}]`)}`
  return out
}

const encodeRange = (value: unknown, where: string, arg: string): string => {
  if (!Array.isArray(value) || value.length !== 2) {
    throw new TypeError(`${where}: ${arg} must be a [min, max] pair, got ${describeType(value)}`)
  }
  const [min, max] = value as [unknown, unknown]
  const minText = scalarText(min, where, "min", true)
  const maxText = scalarText(max, where, "max", true)
  if (orderKey(min) !== orderKey(max)) {
    throw new TypeError(
      `${where}: min and max must have the same type, got ${describeType(min)} and ${describeType(max)}`
    )
  }
  if ((min as number) > (max as number)) {
    throw new RangeError(`${where}: min (${minText}) must not be greater than max (${maxText})`)
  }
  return `${listElement(min, where, "min")},${listElement(max, where, "max")}`
}

/**
 * Checks an operator's value and returns it percent-encoded for the wire (list values joined with a
 * literal `,`). Throws a `TypeError`/`RangeError` whose message starts with `where` and names `arg`.
 */
export const encodeOperand = (
  kind: OperandKind,
  value: unknown,
  where: string,
  arg: string
): string => {
  switch (kind) {
    case "scalar":
      return encode(scalarText(value, where, arg, false), where, arg)
    case "ordered":
      return encode(scalarText(value, where, arg, true), where, arg)
    case "text":
      if (typeof value !== "string") {
        throw new TypeError(`${where}: ${arg} must be a string, got ${describeType(value)}`)
      }
      return encode(value, where, arg)
    case "list":
      return encodeList(value, where, arg)
    case "range":
      return encodeRange(value, where, arg)
    case "flag":
      if (value !== true && value !== undefined) {
        throw new TypeError(`${where}: ${arg} must be true or absent, got ${describeType(value)}`)
      }
      return "true"
  }
}
