/**
 * The demo's catalogue, and how `GET /products` answers a query: the server reads the client's
 * query string with `parse(...)` from `svc-sdk/Query`, then filters, searches, sorts and pages an
 * in-memory list. A real app would turn the same `ParsedQuery` into SQL.
 */
import * as Data from "effect/Data"
import { asNumber, type ParsedFilter, type ParsedQuery, parse } from "svc-sdk/Query"

export interface Product {
  readonly id: number
  readonly name: string
  readonly category: string
  readonly price: number
  /** `null` when the product is not on sale: what `isNull`/`isNotNull` are for. */
  readonly sale_price: number | null
  readonly stock: number
}

const item = (
  id: number,
  name: string,
  category: string,
  price: number,
  stock: number,
  sale_price: number | null = null
): Product => ({ id, name, category, price, sale_price, stock })

export const PRODUCTS: ReadonlyArray<Product> = [
  item(1, "Mechanical Keyboard", "electronics", 89, 34, 79),
  item(2, "Wireless Mouse", "electronics", 29, 120),
  item(3, "USB-C Hub", "electronics", 45, 0),
  item(4, "27-inch Monitor", "electronics", 249, 12, 219),
  item(5, "Noise-Cancelling Headphones", "electronics", 199, 8),
  item(6, "Webcam HD", "electronics", 59, 41),
  item(7, "Laptop Stand", "office", 39, 75),
  item(8, "Desk Lamp", "office", 25, 60, 19),
  item(9, "Ergonomic Chair", "office", 329, 5),
  item(10, "Standing Desk", "office", 499, 3, 449),
  item(11, "Notebook A5", "stationery", 6, 300),
  item(12, "Fountain Pen", "stationery", 42, 22),
  item(13, "Gel Pens (10 pack)", "stationery", 9, 150, 7),
  item(14, "Sticky Notes", "stationery", 4, 500),
  item(15, "Espresso Machine", "kitchen", 289, 7),
  item(16, "Coffee Grinder", "kitchen", 79, 18, 69),
  item(17, "Travel Mug", "kitchen", 19, 90),
  item(18, "Water Bottle", "kitchen", 15, 140),
  item(19, "Backpack", "travel", 69, 33),
  item(20, "Cable Organiser", "travel", 12, 80, 9),
  item(21, "Power Bank", "electronics", 39, 55),
  item(22, "Desk Mat", "office", 22, 48),
  item(23, "Bookshelf Speaker", "electronics", 149, 0, 129),
  item(24, "Paper Tray", "office", 14, 27)
]

/** A query the catalogue cannot answer: the server replies 400 with its message. */
export class ProductQueryError extends Data.TaggedError("ProductQueryError")<{
  readonly message: string
}> {}

export interface ProductPage {
  readonly data: ReadonlyArray<Product>
  readonly meta: {
    readonly page: number
    readonly limit: number
    readonly total: number
    readonly totalPages: number
  }
}

type Field = keyof Product
type Value = string | number | null

const NUMERIC: ReadonlySet<string> = new Set(["id", "price", "sale_price", "stock"])
const FIELDS: ReadonlySet<string> = new Set([...NUMERIC, "name", "category"])
const DEFAULT_LIMIT = 10
const MAX_LIMIT = 100

const fieldOf = (name: string): Field => {
  if (!FIELDS.has(name)) {
    throw new ProductQueryError({
      message: `Unknown field "${name}"; use one of ${[...FIELDS].join(", ")}`
    })
  }
  return name as Field
}

/** The wire carries strings; numeric fields compare as numbers. */
const operand = (field: Field, raw: string): Value =>
  NUMERIC.has(field) ? asNumber(raw, field) : raw

/** SQL `LIKE`: `%` is any run of characters, `_` one character. */
const likePattern = (pattern: string, flags: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      .replace(/%/g, ".*")
      .replace(/_/g, ".")}$`,
    flags
  )

/** A predicate for one filter; like SQL, a comparison with `null` is false. */
const matcher = (filter: ParsedFilter): ((product: Product) => boolean) => {
  const field = fieldOf(filter.field)
  const read = (product: Product): Value => product[field]
  switch (filter.operator) {
    case "isNull":
      return (p) => read(p) === null
    case "isNotNull":
      return (p) => read(p) !== null
    case "in":
    case "notIn": {
      const values = filter.value.map((v) => operand(field, v))
      const inside = (p: Product) => read(p) !== null && values.includes(read(p))
      return filter.operator === "in" ? inside : (p) => read(p) !== null && !inside(p)
    }
    case "between":
    case "notBetween": {
      const [min, max] = filter.value.map((v) => operand(field, v)) as [Value, Value]
      const inside = (p: Product) => {
        const v = read(p)
        return v !== null && min !== null && max !== null && v >= min && v <= max
      }
      return filter.operator === "between" ? inside : (p) => read(p) !== null && !inside(p)
    }
    case "like":
    case "ilike": {
      const regex = likePattern(filter.value, filter.operator === "ilike" ? "i" : "")
      return (p) => read(p) !== null && regex.test(String(read(p)))
    }
    case "startsWith":
      return (p) => read(p) !== null && String(read(p)).startsWith(filter.value)
    case "endsWith":
      return (p) => read(p) !== null && String(read(p)).endsWith(filter.value)
    default: {
      const value = operand(field, filter.value)
      return compare(filter.operator, read, value)
    }
  }
}

const compare = (
  operator: "eq" | "ne" | "gt" | "gte" | "lt" | "lte",
  read: (product: Product) => Value,
  value: Value
) => {
  const test = {
    eq: (a: Value, b: Value) => a === b,
    ne: (a: Value, b: Value) => a !== b,
    gt: (a: Value, b: Value) => a !== null && b !== null && a > b,
    gte: (a: Value, b: Value) => a !== null && b !== null && a >= b,
    lt: (a: Value, b: Value) => a !== null && b !== null && a < b,
    lte: (a: Value, b: Value) => a !== null && b !== null && a <= b
  }[operator]
  return (product: Product) => read(product) !== null && test(read(product), value)
}

/** Sort keys in order; `null` sorts last whatever the direction. */
const byKeys =
  (sort: ParsedQuery["sort"]) =>
  (a: Product, b: Product): number => {
    for (const { field, direction } of sort) {
      const key = fieldOf(field)
      const x = a[key]
      const y = b[key]
      if (x === y) continue
      if (x === null) return 1
      if (y === null) return -1
      return (x < y ? -1 : 1) * (direction === "asc" ? 1 : -1)
    }
    return a.id - b.id
  }

/** Filters, then search over `name`, then sort, then one page. */
export const findProducts = (products: ReadonlyArray<Product>, query: ParsedQuery): ProductPage => {
  const limit = query.limit ?? DEFAULT_LIMIT
  if (limit > MAX_LIMIT) {
    throw new ProductQueryError({ message: `limit must be at most ${MAX_LIMIT}` })
  }
  const matchers = query.filters.map(matcher)
  const search = query.search?.toLowerCase() ?? ""
  const found = products
    .filter((p) => matchers.every((matches) => matches(p)))
    .filter((p) => p.name.toLowerCase().includes(search))
    .sort(byKeys(query.sort))
  const start = query.offset ?? ((query.page ?? 1) - 1) * limit
  return {
    data: found.slice(start, start + limit),
    meta: {
      page: Math.floor(start / limit) + 1,
      limit,
      total: found.length,
      totalPages: Math.ceil(found.length / limit)
    }
  }
}

/** Reads a request URL's query string with `parse` and answers it (throws on a bad query). */
export const answerQuery = (products: ReadonlyArray<Product>, url: URL): ProductPage =>
  findProducts(products, parse(url))
