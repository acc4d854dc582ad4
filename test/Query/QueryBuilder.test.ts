import { describe, expect, it } from "@effect/vitest"
import {
  between,
  gte,
  inOp,
  isNull,
  lte,
  QueryBuilder,
  type QueryRequest,
  query
} from "../../src/Query/index.js"

const throwsNaming = (
  f: () => unknown,
  type: typeof TypeError | typeof RangeError,
  words: string
) => {
  expect(f).toThrow(type)
  expect(f).toThrow(words)
}

describe("QueryBuilder methods", () => {
  it.each<[string, (b: QueryBuilder) => QueryBuilder, string]>([
    ["where(field, value)", (b) => b.where("status", "active"), "status=active"],
    ["where(field, operator)", (b) => b.where("age", gte(18)), "age[gte]=18"],
    ["where(field, name, value)", (b) => b.where("role", "in", ["a", "b"]), "role[in]=a,b"],
    ["where(field, 'eq', value)", (b) => b.where("a", "eq", 1), "a=1"],
    ["where(field, 'isNull', true)", (b) => b.where("d", "isNull", true), "d[isNull]=true"],
    [
      "where(field, 'isNotNull', undefined)",
      (b) => b.where("d", "isNotNull", undefined),
      "d[isNotNull]=true"
    ],
    [
      "where(field, 'between', [min, max])",
      (b) => b.where("n", "between", [1, 9]),
      "n[between]=1,9"
    ],
    [
      "where(field, hand-written operator)",
      (b) => b.where("n", { operator: "lt", value: 3 }),
      "n[lt]=3"
    ],
    ["filter(field, value)", (b) => b.filter("status", "active"), "status=active"],
    ["filter(field, operator)", (b) => b.filter("n", isNull()), "n[isNull]=true"],
    ["search", (b) => b.search("red shoes"), "search=red%20shoes"],
    ["q", (b) => b.q("red shoes"), "search=red%20shoes"],
    ["search('') removes the search", (b) => b.search("x").search(""), ""],
    ["page", (b) => b.page(3), "page=3"],
    ["limit", (b) => b.limit(25), "limit=25"],
    ["perPage", (b) => b.perPage(25), "limit=25"],
    ["offset", (b) => b.offset(0), "offset=0"],
    ["sort", (b) => b.sort("name"), "sort=name"],
    ["sort desc", (b) => b.sort("created_at", "desc"), "sort=-created_at"],
    ["orderBy", (b) => b.orderBy("name", "asc").orderBy("age", "desc"), "sort=name,-age"],
    ["param", (b) => b.param("include", "author"), "include=author"],
    ["param array", (b) => b.param("tag", ["a", "b"]), "tag=a&tag=b"],
    ["param null removes", (b) => b.param("x", 1).param("x", null), ""],
    ["param empty array removes", (b) => b.param("x", 1).param("x", []), ""],
    ["param replaces in place", (b) => b.param("a", 1).param("b", 2).param("a", 3), "a=3&b=2"],
    [
      "params",
      (b) => b.params({ include: "author", fields: ["id", "name"] }),
      "include=author&fields=id&fields=name"
    ],
    [
      "last page/limit/offset win",
      (b) => b.page(1).page(2).limit(1).perPage(5).offset(1).offset(7),
      "page=2&limit=5&offset=7"
    ]
  ])("%s", (_, apply, expected) => {
    const builder = query("/items")
    expect(apply(builder)).toBe(builder)
    expect(builder.toQueryString()).toBe(expected)
    expect(builder.build()).toBe(expected)
  })

  it("header and headers are chainable and do not touch the query", () => {
    const builder = query("/items")
    expect(builder.header("X-A", "1").headers({ "X-B": "2" })).toBe(builder)
    expect(builder.toQueryString()).toBe("")
  })

  it("keeps several filters on one field, in call order", () => {
    const qs = query("/x")
      .where("age", gte(18))
      .where("age", lte(65))
      .where("tag", "a")
      .where("tag", "b")
      .toQueryString()
    expect(qs).toBe("age[gte]=18&age[lte]=65&tag=a&tag=b")
    expect(new URLSearchParams(qs).getAll("tag")).toEqual(["a", "b"])
  })
})

describe("canonical order", () => {
  it("builds status=active&page=2&limit=10 whatever the call order", () => {
    expect(query("/u").where("status", "active").page(2).limit(10).build()).toBe(
      "status=active&page=2&limit=10"
    )
    expect(query("/u").limit(10).page(2).where("status", "active").build()).toBe(
      "status=active&page=2&limit=10"
    )
    expect(query("/u").page(2).limit(10).filter("status", "active").build()).toBe(
      "status=active&page=2&limit=10"
    )
  })

  it("orders filters, search, page, limit, offset, sort, params", () => {
    const qs = query("/u")
      .param("include", "author")
      .sort("name")
      .offset(20)
      .limit(10)
      .page(3)
      .search("x")
      .where("a", 1)
      .sort("age", "desc")
      .where("b", inOp([1, 2]))
      .param("fields", "id")
      .toQueryString()
    expect(qs).toBe(
      "a=1&b[in]=1,2&search=x&page=3&limit=10&offset=20&sort=name,-age&include=author&fields=id"
    )
  })
})

describe("encoding", () => {
  it("percent-encodes so that URLSearchParams reads back every value", () => {
    const nasty = "a b&c=d,e[f]g%h+i/j?k#l 😀 é"
    const field = nasty.replace(/[[\]]/g, "")
    const qs = query("/x")
      .where(field, nasty)
      .where("n", "ne", nasty)
      .search(nasty)
      .sort(nasty.replaceAll(",", ""))
      .param("p", nasty)
      .toQueryString()
    expect(qs).not.toContain(" ")
    expect(qs).not.toContain("+")
    const read = new URLSearchParams(qs)
    expect(read.get(field)).toBe(nasty)
    expect(read.get("n[ne]")).toBe(nasty)
    expect(read.get("search")).toBe(nasty)
    expect(read.get("p")).toBe(nasty)
    expect(read.get("sort")).toBe(nasty.replaceAll(",", ""))
  })

  it("leaves the brackets of field[op] literal", () => {
    expect(query("/x").where("a", gte(1)).build()).toBe("a[gte]=1")
  })
})

describe("toURL", () => {
  it.each([
    ["/users", (b: QueryBuilder) => b, "/users"],
    ["/users", (b: QueryBuilder) => b.page(2), "/users?page=2"],
    ["/users?active=1", (b: QueryBuilder) => b.page(2), "/users?active=1&page=2"],
    ["/users?active=1", (b: QueryBuilder) => b, "/users?active=1"],
    ["/users?", (b: QueryBuilder) => b.page(2), "/users?page=2"],
    ["/users?a=1&", (b: QueryBuilder) => b.page(2), "/users?a=1&page=2"],
    ["/users#top", (b: QueryBuilder) => b.page(2), "/users?page=2#top"],
    // what the builder sets replaces the endpoint's own (a server reads the first of two)
    ["/users?page=1&active=1", (b: QueryBuilder) => b.page(2), "/users?active=1&page=2"],
    [
      "/users?status=a&sort=x&b%5Bgte%5D=1",
      (b: QueryBuilder) => b.where("status", "b").sort("y").where("b", gte(2)),
      "/users?status=b&b[gte]=2&sort=y"
    ],
    ["/users?a+b=1&c=2", (b: QueryBuilder) => b.param("a b", 3), "/users?c=2&a%20b=3"],
    [
      "/users?age[lte]=65",
      (b: QueryBuilder) => b.where("age", gte(18)),
      "/users?age[lte]=65&age[gte]=18"
    ],
    [
      "https://h.example/api/users",
      (b: QueryBuilder) => b.limit(1),
      "https://h.example/api/users?limit=1"
    ]
  ])("%s", (endpoint, apply, expected) => {
    expect(apply(query(endpoint)).toURL()).toBe(expected)
  })
})

describe("validation", () => {
  const b = () => query("/x")

  it("page, limit, perPage, offset", () => {
    throwsNaming(() => b().page(0), RangeError, "page must be an integer >= 1")
    throwsNaming(() => b().page(1.5), RangeError, "page")
    throwsNaming(() => b().page(Number.NaN), RangeError, "page")
    // @ts-expect-error a page is a number
    throwsNaming(() => b().page("2"), TypeError, "page must be a number")
    throwsNaming(() => b().limit(0), RangeError, "limit must be an integer >= 1")
    throwsNaming(() => b().perPage(-1), RangeError, "perPage")
    throwsNaming(() => b().offset(-1), RangeError, "offset must be an integer >= 0")
    throwsNaming(() => b().offset(2 ** 60), RangeError, "offset")
  })

  it("field names", () => {
    throwsNaming(() => b().where("", 1), RangeError, "field must not be empty")
    // @ts-expect-error a field is a string
    throwsNaming(() => b().where(1, 1), TypeError, "field must be a string")
    for (const reserved of ["search", "page", "limit", "offset", "sort"]) {
      throwsNaming(() => b().where(reserved, 1), RangeError, `field "${reserved}" is reserved`)
      throwsNaming(() => b().param(reserved, 1), RangeError, `name "${reserved}" is reserved`)
    }
    throwsNaming(() => b().filter("a[b]", 1), RangeError, 'field must not contain "["')
    throwsNaming(() => b().param("a]", 1), RangeError, 'name must not contain "["')
  })

  it("names a missing value as undefined", () => {
    const missing = undefined as never
    throwsNaming(() => b().where("a", missing), TypeError, "got undefined")
    throwsNaming(() => b().where("a", "in", [missing, "x"]), TypeError, "value[0] must be")
    throwsNaming(() => b().where("a", "in", [missing, "x"]), TypeError, "got undefined")
    throwsNaming(() => b().search(missing), TypeError, "text must be a string, got undefined")
  })

  it("one name cannot be both a filter field and a parameter", () => {
    throwsNaming(
      () => b().where("a", 1).param("a", 2),
      RangeError,
      'name "a" is already a filter field'
    )
    throwsNaming(
      () => b().param("a", 2).where("a", 1),
      RangeError,
      'field "a" is already a custom parameter'
    )
  })

  it("operators", () => {
    // @ts-expect-error unknown operator
    throwsNaming(() => b().where("a", "like2", "x"), TypeError, "operator must be one of eq, ne")
    throwsNaming(() => b().where("a", { operator: "nope", value: 1 }), TypeError, '"nope"')
    throwsNaming(
      // @ts-expect-error in takes an array
      () => b().where("a", "in", "x"),
      TypeError,
      "QueryBuilder.where: value must be an array"
    )
    throwsNaming(
      () => b().where("a", "between", [3, 1]),
      RangeError,
      "min (3) must not be greater than max (1)"
    )
    // @ts-expect-error a list is not an equality value
    throwsNaming(() => b().where("a", ["x"]), TypeError, "value must be a string")
    // @ts-expect-error too many arguments
    throwsNaming(() => b().where("a", "eq", 1, 2), TypeError, "got 4 arguments")
  })

  it("sort", () => {
    throwsNaming(
      // @ts-expect-error only asc and desc
      () => b().sort("a", "up"),
      TypeError,
      'direction must be "asc" or "desc", got "up"'
    )
    throwsNaming(() => b().sort(""), RangeError, "field must not be empty")
    throwsNaming(() => b().orderBy("-a"), RangeError, 'field must not start with "-"')
    throwsNaming(() => b().sort("a,b"), RangeError, 'field must not contain ","')
  })

  it("search, params, headers, endpoint, executor", () => {
    // @ts-expect-error search text is a string
    throwsNaming(() => b().search(1), TypeError, "QueryBuilder.search: text must be a string")
    // @ts-expect-error values are scalars
    throwsNaming(() => b().param("a", [{}]), TypeError, "value[0]")
    // @ts-expect-error params is a record
    throwsNaming(() => b().params(null), TypeError, "params must be a plain object, got null")
    // entries that are not its keys: refused, not read as no parameters at all
    for (const iterable of [new URLSearchParams("a=1"), new Map([["a", "1"]]), [["a", "1"]]]) {
      throwsNaming(() => b().params(iterable as never), TypeError, "params must be a plain object")
    }
    throwsNaming(
      () => b().header("bad name", "x"),
      TypeError,
      'QueryBuilder.header: header name must be an HTTP token other than __proto__, got "bad name"'
    )
    // @ts-expect-error values are strings
    throwsNaming(() => b().header("X-A", 1), TypeError, "header value for X-A must be a string")
    const unsendable =
      "QueryBuilder.header: header value for X-A must not contain control characters (tab aside) or characters past U+00FF"
    throwsNaming(() => b().header("X-A", "a\r\nb"), TypeError, unsendable)
    throwsNaming(() => b().header("X-A", "日本"), TypeError, unsendable)
    throwsNaming(() => b().header("X-A", "a\u0007"), TypeError, unsendable)
    // @ts-expect-error headers is a record
    throwsNaming(() => b().headers("x"), TypeError, "headers must be a plain object")
    throwsNaming(
      () => b().headers(new Headers({ "x-a": "1" }) as never),
      TypeError,
      "headers must be a plain object"
    )
    // @ts-expect-error the endpoint is a string
    throwsNaming(() => query(undefined), TypeError, "endpoint must be a string")
    // @ts-expect-error the executor is a function
    throwsNaming(() => query("/x", 42), TypeError, "executor must be a function")
  })

  it("a failed call leaves the builder as it was", () => {
    const builder = query("/x").where("a", 1).page(2)
    expect(() => builder.where("b", "in", [])).toThrow(RangeError)
    expect(() => builder.page(0)).toThrow(RangeError)
    expect(builder.toQueryString()).toBe("a=1&page=2")
  })
})

describe("execution", () => {
  const recording = () => {
    const calls: Array<QueryRequest> = []
    const executor = (request: QueryRequest) => {
      calls.push(request)
      return `result ${calls.length}`
    }
    return { calls, executor }
  }

  it("calls the executor with the method, URL, headers and body", () => {
    const { calls, executor } = recording()
    const builder = new QueryBuilder<string>("/users", executor)
      .where("status", "active")
      .page(2)
      .header("X-Trace", "t1")
      .headers({ Accept: "application/json" })
    expect(builder.get()).toBe("result 1")
    expect(builder.delete()).toBe("result 2")
    expect(builder.post({ a: 1 })).toBe("result 3")
    expect(builder.put("text")).toBe("result 4")
    expect(builder.patch()).toBe("result 5")
    const url = "/users?status=active&page=2"
    const headers = { "X-Trace": "t1", Accept: "application/json" }
    expect(calls).toEqual([
      { method: "GET", url, headers },
      { method: "DELETE", url, headers },
      { method: "POST", url, headers, body: { a: 1 } },
      { method: "PUT", url, headers, body: "text" },
      { method: "PATCH", url, headers }
    ])
    expect("body" in calls[4]!).toBe(false)
  })

  it("treats header names case-insensitively, last spelling and value winning", () => {
    const { calls, executor } = recording()
    query("/x", executor).header("X-Token", "a").header("x-token", "b").get()
    expect(calls[0]!.headers).toEqual({ "x-token": "b" })
  })

  it("throws a TypeError when not bound to a client", () => {
    const builder = query("/x")
    for (const run of [() => builder.get(), () => builder.post({}), () => builder.delete()]) {
      throwsNaming(run, TypeError, "not bound to a client")
    }
  })

  it("types the result with the executor's", () => {
    const builder = query("/x", () => Promise.resolve(1))
    const result: Promise<number> = builder.get()
    return expect(result).resolves.toBe(1)
  })
})

describe("between on dates", () => {
  it("serializes [min, max] as ISO strings", () => {
    const min = new Date("2024-01-01T00:00:00Z")
    const max = new Date("2024-12-31T00:00:00Z")
    expect(query("/x").where("at", between(min, max)).build()).toBe(
      "at[between]=2024-01-01T00%3A00%3A00.000Z,2024-12-31T00%3A00%3A00.000Z"
    )
  })
})
