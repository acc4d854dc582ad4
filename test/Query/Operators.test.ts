import { describe, expect, it } from "@effect/vitest"
import {
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
  query,
  startsWith
} from "../../src/Query/index.js"

const day = new Date("2024-05-06T07:08:09.010Z")

describe("operator functions", () => {
  it.each([
    ["eq", eq("active"), { operator: "eq", value: "active" }, "f=active"],
    ["ne", ne(3), { operator: "ne", value: 3 }, "f[ne]=3"],
    ["gt", gt(1.5), { operator: "gt", value: 1.5 }, "f[gt]=1.5"],
    ["gte", gte(18), { operator: "gte", value: 18 }, "f[gte]=18"],
    ["lt", lt(day), { operator: "lt", value: day }, "f[lt]=2024-05-06T07%3A08%3A09.010Z"],
    ["lte", lte(10n), { operator: "lte", value: 10n }, "f[lte]=10"],
    ["like", like("%ab%"), { operator: "like", value: "%ab%" }, "f[like]=%25ab%25"],
    ["ilike", ilike("Ab"), { operator: "ilike", value: "Ab" }, "f[ilike]=Ab"],
    ["startsWith", startsWith("jo"), { operator: "startsWith", value: "jo" }, "f[startsWith]=jo"],
    ["endsWith", endsWith(".io"), { operator: "endsWith", value: ".io" }, "f[endsWith]=.io"],
    ["inOp", inOp(["a", 2, true]), { operator: "in", value: ["a", 2, true] }, "f[in]=a,2,true"],
    ["notIn", notIn(["x", "y"]), { operator: "notIn", value: ["x", "y"] }, "f[notIn]=x,y"],
    ["isNull", isNull(), { operator: "isNull", value: true }, "f[isNull]=true"],
    ["isNotNull", isNotNull(), { operator: "isNotNull", value: true }, "f[isNotNull]=true"],
    ["between", between(1, 5), { operator: "between", value: [1, 5] }, "f[between]=1,5"],
    [
      "notBetween",
      notBetween("a", "m"),
      { operator: "notBetween", value: ["a", "m"] },
      "f[notBetween]=a,m"
    ]
  ])("%s returns { operator, value } and serializes", (_, filter, shape, wire) => {
    expect(filter).toEqual(shape)
    expect(query("/x").where("f", filter).toQueryString()).toBe(wire)
  })

  it("names all sixteen operators, inOp's as in", () => {
    expect(OPERATOR_NAMES).toEqual([
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
    ])
  })

  it("sends booleans, bigints and Dates as text", () => {
    expect(query("/x").where("a", eq(false)).where("b", eq(12345678901234567890n)).build()).toBe(
      "a=false&b=12345678901234567890"
    )
    expect(query("/x").where("d", between(day, day)).build()).toBe(
      "d[between]=2024-05-06T07%3A08%3A09.010Z,2024-05-06T07%3A08%3A09.010Z"
    )
  })

  it("copies the list given to inOp", () => {
    const values = ["a", "b"]
    const filter = inOp(values)
    values.push("c")
    expect(filter.value).toEqual(["a", "b"])
  })
})

const throwsNaming = (
  f: () => unknown,
  type: typeof TypeError | typeof RangeError,
  words: string
) => {
  expect(f).toThrow(type)
  expect(f).toThrow(words)
}

describe("operator validation", () => {
  it("between and notBetween reject min > max for numbers, strings, bigints and Dates", () => {
    throwsNaming(() => between(5, 1), RangeError, "min (5) must not be greater than max (1)")
    throwsNaming(() => notBetween("b", "a"), RangeError, "notBetween: min")
    throwsNaming(() => between(2n, 1n), RangeError, "max")
    throwsNaming(() => between(new Date(2), new Date(1)), RangeError, "min")
    expect(between(3, 3).value).toEqual([3, 3])
  })

  it("between rejects mixed types and non-ordered values", () => {
    throwsNaming(
      () => between(1 as number | string, "5"),
      TypeError,
      "min and max must have the same type"
    )
    // @ts-expect-error booleans have no order
    throwsNaming(() => between(true, false), TypeError, "min")
  })

  it("rejects non-finite numbers and invalid Dates", () => {
    throwsNaming(() => eq(Number.NaN), RangeError, "eq: value must be a finite number")
    throwsNaming(() => gt(Number.POSITIVE_INFINITY), RangeError, "gt: value")
    throwsNaming(() => lt(new Date("nope")), RangeError, "lt: value is an invalid Date")
  })

  it("rejects values of other types", () => {
    throwsNaming(
      // @ts-expect-error null is not a filter value
      () => eq(null),
      TypeError,
      "eq: value must be a string, number, boolean, bigint or Date, got null"
    )
    // @ts-expect-error objects are not filter values
    throwsNaming(() => ne({}), TypeError, "ne: value")
    // @ts-expect-error a boolean has no order
    throwsNaming(() => gte(true), TypeError, "gte: value must be a string, number, bigint or Date")
    // @ts-expect-error patterns are strings
    throwsNaming(() => like(5), TypeError, "like: pattern must be a string")
    // @ts-expect-error prefixes are strings
    throwsNaming(() => startsWith(undefined), TypeError, "startsWith: prefix")
  })

  it("rejects lone surrogates, which cannot travel in a URL", () => {
    throwsNaming(() => eq("a\uD800b"), RangeError, "eq: value contains a lone surrogate")
  })

  it("inOp and notIn take a non-empty array without , in its elements", () => {
    throwsNaming(() => inOp([]), RangeError, "inOp: values must not be empty")
    // @ts-expect-error a list is an array
    throwsNaming(() => notIn("a,b"), TypeError, "notIn: values must be an array")
    throwsNaming(() => inOp(["a", "b,c"]), RangeError, 'values[1] contains ","')
    // @ts-expect-error elements are scalars
    throwsNaming(() => inOp([["a"]]), TypeError, "values[0]")
  })
})
