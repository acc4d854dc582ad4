import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { parse as qsParse } from "qs"
import {
  asBigInt,
  asBoolean,
  asDate,
  asNumber,
  between,
  gte,
  inOp,
  isNotNull,
  parse,
  QueryParseError,
  query
} from "../../src/Query/index.js"

describe("parse", () => {
  it("reads every part of a built query", () => {
    const qs = query("/x")
      .where("status", "active")
      .where("age", gte(18))
      .where("role", inOp(["admin", "user"]))
      .where("score", between(1, 9))
      .where("deleted_at", isNotNull())
      .search("red shoes")
      .page(2)
      .limit(10)
      .offset(5)
      .sort("name")
      .sort("created_at", "desc")
      .param("include", ["author", "tags"])
      .param("format", "full")
      .toQueryString()
    expect(parse(qs, { params: ["include", "format"] })).toEqual({
      filters: [
        { field: "status", operator: "eq", value: "active" },
        { field: "age", operator: "gte", value: "18" },
        { field: "role", operator: "in", value: ["admin", "user"] },
        { field: "score", operator: "between", value: ["1", "9"] },
        { field: "deleted_at", operator: "isNotNull", value: true }
      ],
      search: "red shoes",
      page: 2,
      limit: 10,
      offset: 5,
      sort: [
        { field: "name", direction: "asc" },
        { field: "created_at", direction: "desc" }
      ],
      params: { include: ["author", "tags"], format: "full" }
    })
  })

  it("gives an empty query for an empty string", () => {
    expect(parse("")).toEqual({ filters: [], sort: [], params: {} })
    expect(parse("?")).toEqual({ filters: [], sort: [], params: {} })
  })

  it("reads plain names as equality filters unless declared as params", () => {
    expect(parse("include=author").filters).toEqual([
      { field: "include", operator: "eq", value: "author" }
    ])
    expect(parse("include=author", { params: ["include"] })).toEqual({
      filters: [],
      sort: [],
      params: { include: "author" }
    })
  })

  it.each([
    ["a string with ?", "?status=active&page=2"],
    ["URLSearchParams", new URLSearchParams("status=active&page=2")],
    ["a URL", new URL("https://h.example/users?status=active&page=2#x")],
    ["a record", { status: "active", page: "2" }],
    ["a record with arrays", { status: ["active"], page: ["2"] }]
  ])("accepts %s", (_, input) => {
    expect(parse(input)).toEqual({
      filters: [{ field: "status", operator: "eq", value: "active" }],
      page: 2,
      sort: [],
      params: {}
    })
  })

  it("reads hand-written forms: + as space, encoded brackets", () => {
    expect(parse("name%5Blike%5D=a+b").filters).toEqual([
      { field: "name", operator: "like", value: "a b" }
    ])
  })

  it("keeps a parameter named __proto__ as an own property", () => {
    const parsed = parse("__proto__=x", { params: ["__proto__"] })
    expect(Object.keys(parsed.params)).toEqual(["__proto__"])
    expect(Object.getPrototypeOf(parsed.params)).toBe(Object.prototype)
  })

  it.each([
    ["a[foo]=1", "UnknownOperator", "a[foo]"],
    ["a[gte=1", "MalformedKey", "a[gte"],
    ["[gte]=1", "MalformedKey", "[gte]"],
    ["a]=1", "MalformedKey", "a]"],
    ["a[b][c]=1", "MalformedKey", "a[b][c]"],
    ["=1", "MalformedKey", ""],
    ["page[gte]=2", "MalformedKey", "page[gte]"],
    ["page=0", "InvalidValue", "page"],
    ["page=1.5", "InvalidValue", "page"],
    ["page=-1", "InvalidValue", "page"],
    ["page=%202", "InvalidValue", "page"],
    ["limit=0", "InvalidValue", "limit"],
    ["limit=abc", "InvalidValue", "limit"],
    ["offset=-1", "InvalidValue", "offset"],
    ["offset=99999999999999999", "InvalidValue", "offset"],
    ["sort=a,,b", "InvalidValue", "sort"],
    ["sort=-", "InvalidValue", "sort"],
    ["n[between]=1", "InvalidValue", "n[between]"],
    ["n[notBetween]=1,2,3", "InvalidValue", "n[notBetween]"],
    ["d[isNull]=false", "InvalidValue", "d[isNull]"],
    ["page=1&page=2", "DuplicateKey", "page"],
    ["sort=a&sort=b", "DuplicateKey", "sort"],
    ["search=a&search=b", "DuplicateKey", "search"]
  ])("rejects %s with %s", (input, reason, key) => {
    const run = () => parse(input)
    expect(run).toThrow(QueryParseError)
    try {
      run()
    } catch (error) {
      expect(error).toMatchObject({ _tag: "QueryParseError", reason, key })
      expect((error as Error).message).toContain(`"${key}"`)
    }
  })

  it("rejects an operator on a declared parameter", () => {
    expect(() => parse("include[in]=a", { params: ["include"] })).toThrow(
      'Invalid query parameter "include[in]"'
    )
  })

  it("never repeats the value in an error", () => {
    expect(() => parse("page=secret-token-123")).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("secret") })
    )
  })

  it("rejects bad input and options with a TypeError", () => {
    // @ts-expect-error not a query
    expect(() => parse(42)).toThrow(TypeError)
    // @ts-expect-error record values are strings
    expect(() => parse({ a: 1 })).toThrow('input["a"] must be a string')
    expect(() => parse("", { params: ["page"] })).toThrow(TypeError)
  })

  it.effect("its error is a yieldable tagged error for Effect servers", () =>
    Effect.gen(function* () {
      const result = yield* Effect.try({
        try: () => parse("a[nope]=1"),
        catch: (error) => error as QueryParseError
      }).pipe(Effect.either)
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(result.left._tag).toBe("QueryParseError")
      const caught = yield* Effect.fail(
        new QueryParseError({ reason: "InvalidValue", key: "k", detail: "d" })
      ).pipe(Effect.catchTag("QueryParseError", (e) => Effect.succeed(e.message)))
      expect(caught).toBe('Invalid query parameter "k": d')
    })
  )
})

describe("coercion helpers", () => {
  it("asNumber", () => {
    expect(asNumber("18")).toBe(18)
    expect(asNumber("-1.5")).toBe(-1.5)
    expect(asNumber("1e+21")).toBe(1e21)
    for (const bad of ["", " 1", "0x10", "1a", "Infinity", "NaN", "1e999"]) {
      expect(() => asNumber(bad, "age")).toThrow('Invalid query parameter "age": must be a number')
    }
    for (const good of ["1.", ".5", "1.5e3", "-0.25E-2", "007"]) {
      expect(asNumber(good)).toBe(Number(good))
    }
  })

  it("refuses input it would misread: a Map, Headers or FormData, and params given as one string", () => {
    for (const input of [new Map([["a", "1"]]), new Headers({ a: "1" }), new FormData()]) {
      expect(() => parse(input as never)).toThrow(
        new TypeError(
          `parse: input must be a string, URLSearchParams, URL or record, got a ${input.constructor.name}`
        )
      )
    }
    expect(() => parse("i=1&include=x", { params: "include" })).toThrow(
      new TypeError(
        'parse: options.params must be a list of parameter names (["include"]), not a string'
      )
    )
    // a DTO a framework made of the query is read as the record it is
    class QueryDto {
      status = "active"
    }
    expect(parse(new QueryDto() as never).filters).toEqual([
      { field: "status", operator: "eq", value: "active" }
    ])
    // a record without a prototype (as some frameworks parse a query) is one
    const parsed = Object.assign(Object.create(null) as Record<string, string>, { age: "18" })
    expect(parse(parsed).filters).toEqual([{ field: "age", operator: "eq", value: "18" }])
  })

  it("reads a nesting parser's record (Express 4's qs) as the query string it came from", () => {
    const wire = "status=active&age[gte]=18&age[lte]=65&role[in]=a,b&tag=x&tag=y&page=2"
    const viaQs = qsParse(wire) as Record<string, string>
    expect(viaQs.age).toEqual({ gte: "18", lte: "65" })
    expect(parse(viaQs)).toEqual(parse(wire))
    // deeper than field[operator]: a key the format cannot read, as in the query string
    for (const [deeper, key] of [
      ["a[b][c]=1", "a[b]"],
      ["a[0][b]=1", "a"],
      ["a[gte][x][y]=1", "a[gte]"]
    ] as const) {
      expect(() => parse(deeper)).toThrow(QueryParseError)
      const run = () => parse(qsParse(deeper) as never)
      expect(run).toThrow(
        expect.objectContaining({ _tag: "QueryParseError", reason: "MalformedKey", key })
      )
    }
  })

  it("a record's value that no query parser makes is a TypeError, never a filter dropped", () => {
    class Owner {}
    for (const value of [new Date(0), new URL("http://h/"), new Owner(), 5, [1, 2]]) {
      expect(() => parse({ name: "x", owner: value } as never)).toThrow(TypeError)
    }
    for (const value of [5, null, new Date(0)]) {
      expect(() => parse({ a: { gte: value } } as never)).toThrow(TypeError)
    }
    // qs's plainObjects: no prototype
    const bare = Object.assign(Object.create(null) as Record<string, string>, { gte: "18" })
    expect(parse({ age: bare } as never).filters).toEqual([
      { field: "age", operator: "gte", value: "18" }
    ])
  })

  it("a key cut short keeps whole characters: never half a surrogate pair", () => {
    try {
      parse(`${"a".repeat(63)}😀😀[=1`)
    } catch (error) {
      expect((error as Error).message).toBe(
        `Invalid query parameter "${"a".repeat(63)}…": expected field[operator]`
      )
    }
    expect.assertions(1)
  })

  it("quotes the key escaped and cut short: a query string is the sender's to write", () => {
    const error = (() => {
      try {
        parse(`x[evil\r\nSet-Cookie: a]=1&${"a".repeat(10_000)}[=1`)
      } catch (e) {
        return e as QueryParseError
      }
    })()
    expect(error?.message).toBe(
      'Invalid query parameter "x[evil\\r\\nSet-Cookie: a]": unknown operator "evil\\r\\nSet-Cookie: a"'
    )
    const long = (() => {
      try {
        parse(`${"a".repeat(10_000)}[=1`)
      } catch (e) {
        return e as QueryParseError
      }
    })()
    expect(long?.key).toHaveLength(10_001)
    expect(long?.message).toBe(
      `Invalid query parameter "${"a".repeat(64)}…": expected field[operator]`
    )
  })

  it("asNumber reads a value from the request in linear time: a long run of digits is no cost", () => {
    // a value a client sends (`price[gte]=111…1x`): the number's pattern once backtracked through
    // every way to split the digits, minutes of CPU for a megabyte; now one pass
    const digits = "1".repeat(1_000_000)
    for (const bad of [`${digits}x`, `${digits}e`, `${digits}.x`, `-${digits}e+`]) {
      expect(() => asNumber(bad, "price")).toThrow('"price": must be a number')
    }
    expect(asNumber(`${digits.slice(0, 300)}.5`)).toBe(Number(`${digits.slice(0, 300)}.5`))
  })

  it("asBigInt", () => {
    expect(asBigInt("12345678901234567890")).toBe(12345678901234567890n)
    expect(() => asBigInt("1.0", "id")).toThrow(QueryParseError)
  })

  it("asBoolean", () => {
    expect(asBoolean("true")).toBe(true)
    expect(asBoolean("false")).toBe(false)
    expect(() => asBoolean("yes", "active")).toThrow('"active"')
  })

  it("asDate", () => {
    const date = new Date("2024-05-06T07:08:09.010Z")
    expect(asDate(date.toISOString())).toEqual(date)
    expect(() => asDate("not a date", "at")).toThrow(QueryParseError)
    expect(() => asDate("", "at")).toThrow(QueryParseError)
  })
})
