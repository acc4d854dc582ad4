/**
 * Property tests: for random builders, `parse(toQueryString(b))` gives back what `b` holds, and
 * `URLSearchParams` reads back every name and value exactly.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  type FilterValue,
  type OperatorName,
  type ParsedFilter,
  type ParsedQuery,
  parse,
  type QueryBuilder,
  query
} from "../../src/Query/index.js"

const RESERVED = ["search", "page", "limit", "offset", "sort"]

/** Characters the wire format or percent-encoding care about, plus astral and accented ones. */
const nastyChar = fc.constantFrom(
  " ",
  "&",
  "=",
  ",",
  "[",
  "]",
  "%",
  "+",
  "#",
  "?",
  "/",
  "-",
  "a",
  "Z",
  "0",
  "é",
  "😀",
  "𝔘",
  "\u0000",
  "\n"
)
const text = fc.oneof(
  fc.string({ unit: nastyChar, maxLength: 8 }),
  fc.string({ unit: "binary", maxLength: 8 })
)
const noComma = text.filter((s) => !s.includes(","))
const name = text.filter(
  (s) => s.length > 0 && !RESERVED.includes(s) && !s.includes("[") && !s.includes("]")
)

const textOf = (value: FilterValue): string =>
  value instanceof Date ? value.toISOString() : String(value)

const date = fc.date({ noInvalidDate: true })
const number = fc.double({ noNaN: true, noDefaultInfinity: true })
const scalar: fc.Arbitrary<FilterValue> = fc.oneof(text, number, fc.boolean(), fc.bigInt(), date)
const listScalar: fc.Arbitrary<FilterValue> = fc.oneof(
  noComma,
  number,
  fc.boolean(),
  fc.bigInt(),
  date
)

const byOrder = <A>(a: A, b: A) => (a < b ? -1 : a > b ? 1 : 0)
const range: fc.Arbitrary<readonly [FilterValue, FilterValue]> = fc
  .oneof(
    fc.tuple(noComma, noComma),
    fc.tuple(number, number),
    fc.tuple(fc.bigInt(), fc.bigInt()),
    fc.tuple(date, date)
  )
  .map(([a, b]) => [a, b].sort(byOrder) as unknown as readonly [FilterValue, FilterValue])

interface FilterCase {
  readonly field: string
  readonly operator: OperatorName
  readonly value: unknown
  readonly expected: ParsedFilter
}

const filterCase = (field: string): fc.Arbitrary<FilterCase> =>
  fc
    .oneof(
      fc
        .tuple(fc.constantFrom("eq" as const, "ne" as const), scalar)
        .map(([operator, value]) => ({ operator, value, text: textOf(value) })),
      fc
        .tuple(
          fc.constantFrom("gt" as const, "gte" as const, "lt" as const, "lte" as const),
          fc.oneof(text, number, fc.bigInt(), date)
        )
        .map(([operator, value]) => ({ operator, value, text: textOf(value) })),
      fc
        .tuple(
          fc.constantFrom(
            "like" as const,
            "ilike" as const,
            "startsWith" as const,
            "endsWith" as const
          ),
          text
        )
        .map(([operator, value]) => ({ operator, value, text: value })),
      fc
        .tuple(
          fc.constantFrom("in" as const, "notIn" as const),
          fc.array(listScalar, { minLength: 1, maxLength: 4 })
        )
        .map(([operator, value]) => ({ operator, value, text: value.map(textOf) })),
      fc
        .tuple(fc.constantFrom("between" as const, "notBetween" as const), range)
        .map(([operator, value]) => ({ operator, value, text: value.map(textOf) })),
      fc
        .constantFrom("isNull" as const, "isNotNull" as const)
        .map((operator) => ({ operator, value: true, text: true }))
    )
    .map(({ operator, value, text }) => ({
      field,
      operator,
      value,
      expected: { field, operator, value: text } as ParsedFilter
    }))

interface Model {
  readonly filters: ReadonlyArray<FilterCase>
  readonly search: string | undefined
  readonly page: number | undefined
  readonly limit: number | undefined
  readonly offset: number | undefined
  readonly sort: ReadonlyArray<{ readonly field: string; readonly direction: "asc" | "desc" }>
  readonly params: ReadonlyArray<readonly [string, string | ReadonlyArray<string>]>
  /** How the builder calls are interleaved; the wire order must not depend on it. */
  readonly shuffle: number
}

const model: fc.Arbitrary<Model> = fc.uniqueArray(name, { maxLength: 3 }).chain((paramNames) =>
  fc.record({
    filters: fc.array(name.filter((field) => !paramNames.includes(field)).chain(filterCase), {
      maxLength: 5
    }),
    search: fc.option(text, { nil: undefined }),
    page: fc.option(fc.integer({ min: 1 }), { nil: undefined }),
    limit: fc.option(fc.integer({ min: 1 }), { nil: undefined }),
    offset: fc.option(fc.nat(), { nil: undefined }),
    sort: fc.array(
      fc.record({
        field: noComma.filter((s) => s.length > 0 && !s.startsWith("-")),
        direction: fc.constantFrom("asc" as const, "desc" as const)
      }),
      { maxLength: 3 }
    ),
    params: fc.tuple(
      ...paramNames.map((n) =>
        fc.oneof(text, fc.array(text, { minLength: 2, maxLength: 3 })).map((v) => [n, v] as const)
      )
    ),
    shuffle: fc.nat()
  })
)

/** Applies the model's calls, paging and params first when `shuffle` is odd. */
const build = (m: Model): QueryBuilder => {
  const b = query("/items")
  const rest = () => {
    if (m.search !== undefined) b.q(m.search)
    for (const s of m.sort) b.orderBy(s.field, s.direction)
  }
  const paging = () => {
    if (m.offset !== undefined) b.offset(m.offset)
    if (m.limit !== undefined) b.perPage(m.limit)
    if (m.page !== undefined) b.page(m.page)
    for (const [n, v] of m.params) b.param(n, v)
  }
  if (m.shuffle % 2 === 1) paging()
  for (const [i, f] of m.filters.entries()) {
    // alternate the three forms of `where` and `filter`
    if (i % 2 === 0) b.where(f.field, f.operator, f.value as never)
    else b.filter(f.field, { operator: f.operator, value: f.value })
  }
  rest()
  if (m.shuffle % 2 === 0) paging()
  return b
}

const expected = (m: Model): ParsedQuery => ({
  filters: m.filters.map((f) => f.expected),
  ...(m.search === undefined || m.search === "" ? {} : { search: m.search }),
  ...(m.page === undefined ? {} : { page: m.page }),
  ...(m.limit === undefined ? {} : { limit: m.limit }),
  ...(m.offset === undefined ? {} : { offset: m.offset }),
  sort: m.sort,
  params: Object.fromEntries(m.params)
})

/** The name/value pairs the wire must carry, in the pinned order. */
const pairs = (m: Model): Array<[string, string]> => {
  const out: Array<[string, string]> = []
  for (const { field, operator, expected: f } of m.filters) {
    const value = Array.isArray(f.value) ? f.value.join(",") : String(f.value)
    out.push([operator === "eq" ? field : `${field}[${operator}]`, value])
  }
  if (m.search !== undefined && m.search !== "") out.push(["search", m.search])
  if (m.page !== undefined) out.push(["page", String(m.page)])
  if (m.limit !== undefined) out.push(["limit", String(m.limit)])
  if (m.offset !== undefined) out.push(["offset", String(m.offset)])
  if (m.sort.length > 0) {
    out.push([
      "sort",
      m.sort.map((s) => (s.direction === "desc" ? `-${s.field}` : s.field)).join(",")
    ])
  }
  for (const [n, v] of m.params)
    for (const one of typeof v === "string" ? [v] : v) out.push([n, one])
  return out
}

describe("round trip", () => {
  it("parse(toQueryString(b)) gives back what b holds", () => {
    fc.assert(
      fc.property(model, (m) => {
        const qs = build(m).toQueryString()
        expect(parse(qs, { params: m.params.map(([n]) => n) })).toEqual(expected(m))
      }),
      { numRuns: 500 }
    )
  })

  it("URLSearchParams reads back every name and value exactly, in order", () => {
    fc.assert(
      fc.property(model, (m) => {
        const qs = build(m).toQueryString()
        expect([...new URLSearchParams(qs)]).toEqual(pairs(m))
        expect(qs).not.toMatch(/[ +]/)
      }),
      { numRuns: 500 }
    )
  })

  it("parse reads a URL built by toURL, and URLSearchParams/record inputs alike", () => {
    fc.assert(
      fc.property(model, (m) => {
        const b = build(m)
        const options = { params: m.params.map(([n]) => n) }
        const fromURL = parse(new URL(b.toURL(), "http://h.example"), options)
        expect(fromURL).toEqual(expected(m))
        expect(parse(new URLSearchParams(b.toQueryString()), options)).toEqual(fromURL)
      }),
      { numRuns: 200 }
    )
  })

  it("lone surrogates are refused with a RangeError, never sent as something else", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 4 }),
        fc.constantFrom("\uD800", "\uDFFF"),
        (s, lone) => {
          expect(() => query("/x").where("f", `${s}${lone}`)).toThrow(RangeError)
          expect(() => query("/x").search(`${lone}${s}`)).toThrow("text contains a lone surrogate")
        }
      )
    )
  })
})
