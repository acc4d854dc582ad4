/**
 * A chainable query builder: filters, search, paging, sorting and custom parameters, serialized in
 * the pinned wire format, and executed through the client that created it.
 *
 * Wire format (pinned), in this order whatever the call order: filters (call order), `search`,
 * `page`, `limit`, `offset`, `sort=f1,-f2`, then custom parameters (call order). Equality is
 * `field=value`; other operators are `field[op]=value`. Names and values are encoded like
 * `encodeURIComponent` (a space is `%20`, `+` is `%2B`), so `new URLSearchParams(query)` reads back
 * exactly what was given; the brackets of `field[op]` and the `,` between list values are left
 * literal. {@link parse} is the inverse.
 *
 * @since 0.1.0
 */

import type { HttpMethod } from "../core/http.js"
import * as internal from "./internal/builder.js"
import type { FilterOperator, FilterValue, OperatorName, OrderedValue } from "./Operators.js"

export type { HttpMethod }

/**
 * What an execution method hands to the executor: `url` is {@link QueryBuilder.toURL}, `headers`
 * those given with `header`/`headers`, `body` only for `post`/`put`/`patch` when one was given.
 *
 * @since 0.1.0
 * @category models
 */
export interface QueryRequest {
  readonly method: HttpMethod
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: unknown
}

/**
 * Runs a built request; the client supplies it (`client.query(endpoint)`), and its result is what
 * `get`/`post`/… return.
 *
 * @since 0.1.0
 * @category models
 */
export type QueryExecutor<R> = (request: QueryRequest) => R

/**
 * What a client's builder gives for `get<T>()` and the other execution methods: a type function
 * from the data type `A` to the result (`type`, read with `A` set). A client passes its own
 * (`client.query(endpoint)`); a builder without one gives the executor's result `R` for any `T`.
 *
 * @example
 * ```ts
 * import type { QueryResultKind } from "svc-sdk/Query"
 *
 * interface Listed extends QueryResultKind {
 *   readonly type: Promise<ReadonlyArray<this["A"]>>
 * }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface QueryResultKind {
  readonly A: unknown
  readonly type: unknown
}

/**
 * The result of `get<T>()` on a `QueryBuilder<R, K>`: `K` applied to `T`, or `R` when the builder
 * has no {@link QueryResultKind}.
 *
 * @since 0.1.0
 * @category models
 */
export type QueryResult<R, K extends QueryResultKind | undefined, T> = K extends QueryResultKind
  ? (K & { readonly A: T })["type"]
  : R

/**
 * A custom parameter value. An array repeats the name (`tag=a&tag=b`); `null`/`undefined` or an
 * empty array removes the parameter.
 *
 * @since 0.1.0
 * @category models
 */
export type ParamValue = FilterValue | ReadonlyArray<FilterValue> | null | undefined

/**
 * The value `where(field, operatorName, value)` takes for each operator.
 *
 * @since 0.1.0
 * @category models
 */
export interface OperatorValues {
  readonly eq: FilterValue
  readonly ne: FilterValue
  readonly gt: OrderedValue
  readonly gte: OrderedValue
  readonly lt: OrderedValue
  readonly lte: OrderedValue
  readonly like: string
  readonly ilike: string
  readonly startsWith: string
  readonly endsWith: string
  readonly in: ReadonlyArray<FilterValue>
  readonly notIn: ReadonlyArray<FilterValue>
  readonly isNull: true | undefined
  readonly isNotNull: true | undefined
  readonly between: readonly [OrderedValue, OrderedValue]
  readonly notBetween: readonly [OrderedValue, OrderedValue]
}

/**
 * Builds a query. Every method but the utilities (`toQueryString`, `toURL`, `build`) and the
 * execution methods changes this builder and returns it.
 *
 * Arguments are checked at the call: a wrong type or an unknown name (operator, direction) is a
 * `TypeError`, a value out of range (empty field, page `0`, `min > max`, …) a `RangeError`, and the
 * message names the argument. Names the format uses itself (`search`, `page`, `limit`, `offset`,
 * `sort`) cannot be filter fields or custom parameters, filter fields and parameter names cannot
 * contain `[`/`]`, and one name cannot be both a filter field and a parameter — so that
 * {@link parse} can always tell them apart.
 *
 * @example
 * ```ts
 * import { gte, query } from "svc-sdk/Query"
 *
 * query("/users").page(2).where("status", "active").where("age", gte(18)).limit(10).toQueryString()
 * // "status=active&age[gte]=18&page=2&limit=10"
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export class QueryBuilder<R = never, K extends QueryResultKind | undefined = undefined> {
  readonly #state: internal.BuilderState
  readonly #executor: QueryExecutor<R> | undefined

  /**
   * @param endpoint a path or URL; the query is appended (with `&` if it already has a `?`).
   * @param executor runs `get`/`post`/…; without one, those throw a `TypeError`.
   */
  constructor(endpoint: string, executor?: QueryExecutor<R>) {
    if (executor !== undefined && typeof executor !== "function") {
      throw new TypeError("QueryBuilder: executor must be a function")
    }
    this.#state = internal.makeState(endpoint)
    this.#executor = executor
  }

  /**
   * Adds a filter; several filters on one field are all sent, in call order.
   * - `where(field, value)`: equality, `field=value`;
   * - `where(field, operator)`: with an operator function's result, e.g. `where("age", gte(18))`;
   * - `where(field, operatorName, value)`: e.g. `where("status", "in", ["a", "b"])`. For `isNull`
   *   and `isNotNull` pass `true` or `undefined` as the value: two arguments always mean equality,
   *   so `where("x", "isNull")` is `x=isNull` — prefer `where("x", isNull())`.
   *
   * @since 0.1.0
   */
  where(field: string, value: FilterValue | FilterOperator): this
  where<Op extends OperatorName>(field: string, operator: Op, value: OperatorValues[Op]): this
  where(field: string, ...args: Array<unknown>): this {
    internal.addFilter(this.#state, field, args, "QueryBuilder.where")
    return this
  }

  /**
   * `where` with two arguments: an equality value or an operator's result.
   *
   * @since 0.1.0
   */
  filter(field: string, value: FilterValue | FilterOperator): this {
    internal.addFilter(this.#state, field, [value], "QueryBuilder.filter")
    return this
  }

  /**
   * Sets the full-text search, `search=<text>`; the last call wins and `""` removes it.
   *
   * @since 0.1.0
   */
  search(text: string): this {
    internal.setSearch(this.#state, text, "QueryBuilder.search")
    return this
  }

  /**
   * Alias of {@link QueryBuilder.search}.
   *
   * @since 0.1.0
   */
  q(text: string): this {
    internal.setSearch(this.#state, text, "QueryBuilder.q")
    return this
  }

  /**
   * Sets the 1-based page number, an integer `>= 1`; the last call wins.
   *
   * @since 0.1.0
   */
  page(page: number): this {
    this.#state.page = internal.checkInteger(page, 1, "QueryBuilder.page", "page")
    return this
  }

  /**
   * Sets the page size, an integer `>= 1` (no maximum is imposed); the last call wins.
   *
   * @since 0.1.0
   */
  limit(limit: number): this {
    this.#state.limit = internal.checkInteger(limit, 1, "QueryBuilder.limit", "limit")
    return this
  }

  /**
   * Alias of {@link QueryBuilder.limit}.
   *
   * @since 0.1.0
   */
  perPage(perPage: number): this {
    this.#state.limit = internal.checkInteger(perPage, 1, "QueryBuilder.perPage", "perPage")
    return this
  }

  /**
   * Sets the number of items to skip, an integer `>= 0`; the last call wins.
   *
   * @since 0.1.0
   */
  offset(offset: number): this {
    this.#state.offset = internal.checkInteger(offset, 0, "QueryBuilder.offset", "offset")
    return this
  }

  /**
   * Adds a sort key; several keys are sent in call order, `desc` as a leading `-`
   * (`sort=name,-created_at`). The field must not be empty, contain `,` or start with `-`.
   *
   * @since 0.1.0
   */
  sort(field: string, direction: "asc" | "desc" = "asc"): this {
    internal.addSort(this.#state, field, direction, "QueryBuilder.sort")
    return this
  }

  /**
   * Alias of {@link QueryBuilder.sort}.
   *
   * @since 0.1.0
   */
  orderBy(field: string, direction: "asc" | "desc" = "asc"): this {
    internal.addSort(this.#state, field, direction, "QueryBuilder.orderBy")
    return this
  }

  /**
   * Sets a custom parameter, sent after everything else. Setting a name again replaces its value
   * and keeps its place; see {@link ParamValue} for arrays and removal.
   *
   * @since 0.1.0
   */
  param(name: string, value: ParamValue): this {
    internal.setParam(this.#state, name, value, "QueryBuilder.param")
    return this
  }

  /**
   * `param` for each own key of `params`, in key order.
   *
   * @since 0.1.0
   */
  params(params: Readonly<Record<string, ParamValue>>): this {
    internal.setParams(this.#state, params, "QueryBuilder.params")
    return this
  }

  /**
   * Sets a request header (names are case-insensitive: the last spelling and value win).
   *
   * @since 0.1.0
   */
  header(name: string, value: string): this {
    internal.setHeader(this.#state, name, value, "QueryBuilder.header")
    return this
  }

  /**
   * `header` for each own key of `headers`.
   *
   * @since 0.1.0
   */
  headers(headers: Readonly<Record<string, string>>): this {
    internal.setHeaders(this.#state, headers, "QueryBuilder.headers")
    return this
  }

  /**
   * The query string, without `?`, in the pinned order.
   *
   * @since 0.1.0
   */
  toQueryString(): string {
    return internal.toQueryString(this.#state)
  }

  /**
   * Alias of {@link QueryBuilder.toQueryString}.
   *
   * @since 0.1.0
   */
  build(): string {
    return internal.toQueryString(this.#state)
  }

  /**
   * `<endpoint>?<query>`: no `?` when the query is empty, `&` when the endpoint already has a
   * query (a parameter the builder sets replaces the endpoint's of that name), and an endpoint's
   * `#fragment` kept last.
   *
   * @since 0.1.0
   */
  toURL(): string {
    return internal.toURL(this.#state)
  }

  /**
   * Sends the query as a GET through the client. `get<T>()` names the response's data type, as
   * `client.get<T>(endpoint)` does, on a builder made by a client.
   *
   * @since 0.1.0
   */
  get(): R
  get<T>(): QueryResult<R, K, T>
  get(): unknown {
    return this.#execute("GET", undefined)
  }

  /** @since 0.1.0 */
  delete(): R
  delete<T>(): QueryResult<R, K, T>
  delete(): unknown {
    return this.#execute("DELETE", undefined)
  }

  /** @since 0.1.0 */
  post(body?: unknown): R
  post<T>(body?: unknown): QueryResult<R, K, T>
  post(body?: unknown): unknown {
    return this.#execute("POST", body)
  }

  /** @since 0.1.0 */
  put(body?: unknown): R
  put<T>(body?: unknown): QueryResult<R, K, T>
  put(body?: unknown): unknown {
    return this.#execute("PUT", body)
  }

  /** @since 0.1.0 */
  patch(body?: unknown): R
  patch<T>(body?: unknown): QueryResult<R, K, T>
  patch(body?: unknown): unknown {
    return this.#execute("PATCH", body)
  }

  #execute(method: HttpMethod, body: unknown): R {
    if (this.#executor === undefined) {
      throw new TypeError(
        `QueryBuilder.${method.toLowerCase()}: this builder is not bound to a client; create it with client.query(endpoint) or pass an executor`
      )
    }
    return this.#executor(internal.toRequest(this.#state, method, body))
  }
}

/**
 * `new QueryBuilder(endpoint, executor)`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const query = <R = never>(endpoint: string, executor?: QueryExecutor<R>): QueryBuilder<R> =>
  new QueryBuilder(endpoint, executor)
