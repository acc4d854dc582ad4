/**
 * What the demo app answers, written once for both Effect lines' routers (`app.ts` on Effect 4,
 * `v3/app.ts` on Effect 3). An answer is a status and a JSON body; each line's app reads the
 * request, calls these and turns the answer into its own `HttpServerResponse`. Only what both
 * Effects spell the same is used here (`Schema`).
 */
import * as Schema from "effect/Schema"
import { QueryParseError } from "svc-sdk/Query"
import { answerQuery, type Product, ProductQueryError } from "./products.js"
import type { User } from "./users.js"

/** A status and the JSON body that goes with it. */
export interface Answer {
  readonly status: number
  readonly body: unknown
}

/** Error bodies have the same shape as the guards' own: `{"error": "..."}`. */
export const failWith = (status: number, error: string): Answer => ({ status, body: { error } })

/** Success bodies are envelopes, which the client lifts into its `ApiResponse`. */
export const succeedWith = (
  data: unknown,
  extra: { readonly message?: string; readonly meta?: unknown } = {}
): Answer => ({ status: 200, body: { success: true, data, ...extra } })

/**
 * The session cookie's options (`setSessionCookie`, `clearSessionCookie`): `HttpOnly`, `SameSite=Lax`
 * and `Path=/` as by default, but not `Secure`, since the demo serves plain HTTP on 127.0.0.1. A
 * server on HTTPS keeps the default.
 */
export const COOKIE = { secure: false } as const

export const NOT_FOUND = failWith(404, "Not found")

/**
 * A store failure outside the guards (which answer 500 themselves): login, logout, devices; the
 * login throttle's counters too (with `--store redis` they live in the same Redis).
 */
export const STORE_UNAVAILABLE = failWith(500, "Session store unavailable")

export const LoginBody = Schema.Struct({ email: Schema.String, password: Schema.String })

export const BAD_LOGIN_BODY = failWith(400, 'Expected a JSON body {"email", "password"}')

/** One answer for an unknown email and a wrong password. */
export const WRONG_CREDENTIALS = failWith(401, "Invalid email or password")

/**
 * The id goes in the body too, for clients without cookies (they call `setSessionId`), with the
 * new device's refresh token (`POST /refresh`); a login that rotated a session keeps its device,
 * and the device's refresh token, so it answers none.
 */
export const welcome = (
  { user_id, name, user_type }: User,
  sessionId: string,
  refreshToken?: string
): Answer =>
  succeedWith(
    {
      user_id,
      name,
      user_type,
      session_id: sessionId,
      ...(refreshToken === undefined ? {} : { refresh_token: refreshToken })
    },
    { message: `Welcome, ${name}` }
  )

/**
 * What `/login` counts failures under (`LoginThrottle`): the account, as `authenticate` looks it up
 * (trimmed, lowercased), and the client's address (`"unknown"` when the request has none). An
 * unknown account counts too, so the answer never tells which accounts exist.
 */
export const throttleKeys = (email: string, address: string | undefined) => {
  const account = `account:${email.trim().toLowerCase()}`
  return { account, keys: [account, `address:${address ?? "unknown"}`] } as const
}

export const LOGGED_OUT = succeedWith(null, { message: "Logged out" })

export const loggedOutEverywhere = (sessions: number): Answer =>
  succeedWith({ sessions }, { message: "Logged out everywhere" })

/**
 * `GET /sessions`: the user's devices, oldest first; a `handle` is safe to show, the id never is.
 * `current` marks the device of the request (`SessionStore.handleOf` of its id).
 */
export const devices = (
  sessions: ReadonlyArray<{
    readonly handle: string
    readonly createdAt: Date
    readonly lastSeenAt: Date
    readonly expiresAt: Date
  }>,
  current: string | undefined
): Answer =>
  succeedWith(
    sessions.map(({ handle, createdAt, lastSeenAt, expiresAt }) => ({
      handle,
      current: handle === current,
      createdAt,
      lastSeenAt,
      expiresAt
    }))
  )

export const SESSION_NOT_FOUND = failWith(404, "Session not found")

/** `DELETE /sessions/:handle`: one device signed out, or 404 for a handle not among the user's. */
export const deviceEnded = (ended: boolean): Answer =>
  ended ? succeedWith({ ended: true }, { message: "Signed out" }) : SESSION_NOT_FOUND

/** `POST /sessions/others`: every other device signed out. */
export const othersEnded = (ended: number): Answer =>
  succeedWith({ ended }, { message: "Signed out other devices" })

export const RefreshBody = Schema.Struct({ refresh_token: Schema.String })

export const BAD_REFRESH_BODY = failWith(400, 'Expected a JSON body {"refresh_token"}')

/** One answer for a malformed, unknown, used or ended refresh token. */
export const INVALID_REFRESH_TOKEN = failWith(401, "Invalid refresh token")

/**
 * `POST /refresh`: a new session id for the device, and its next refresh token (the one presented
 * is spent); `refreshes` counts the refreshes this server has made since it started.
 */
export const refreshed = (sessionId: string, refreshToken: string, refreshes: number): Answer =>
  succeedWith(
    { session_id: sessionId, refresh_token: refreshToken, refreshes },
    { message: "Session refreshed" }
  )

/** `POST /demo/expire`: the caller's session id ended, its device kept (demo only). */
export const EXPIRED = succeedWith(null, {
  message: "Session expired (demo only): POST /refresh with the device's refresh token"
})

/** `/me`: who the session belongs to. */
export const whoIs = (session: {
  readonly user_id: string
  readonly email?: string | undefined
  readonly name?: string | undefined
  readonly user_type?: string | undefined
  readonly permissions?: ReadonlyArray<string> | undefined
}): Answer => {
  const { user_id, email, name, user_type, permissions } = session
  return succeedWith({ user_id, email, name, user_type, permissions })
}

/** A request's URL (servers give the path and query only). */
export const urlOf = (url: string): URL => new URL(url, "http://localhost")

/**
 * A page of the catalogue for the query in `url`; a malformed query is a 400 with the parser's
 * message. `who` is the user's name, `undefined` for a guest.
 */
export const productsPage = (
  products: ReadonlyArray<Product>,
  url: string,
  who: string | undefined
): Answer => {
  try {
    const page = answerQuery(products, urlOf(url))
    const message = who === undefined ? "Browsing as a guest" : `Browsing as ${who}`
    return succeedWith(page.data, { meta: page.meta, message })
  } catch (error) {
    if (error instanceof QueryParseError || error instanceof ProductQueryError) {
      return failWith(400, error.message)
    }
    throw error
  }
}

export const PRODUCT_NOT_FOUND = failWith(404, "Product not found")

export const deletedProduct = (product: Product): Answer =>
  succeedWith(product, { message: `Deleted ${product.name}` })

/** `POST /products`: what a new product must have (its id is the catalogue's next). */
export const NewProduct = Schema.Struct({
  name: Schema.String,
  category: Schema.String,
  price: Schema.Number,
  stock: Schema.Number
})

export const BAD_PRODUCT_BODY = failWith(
  400,
  'Expected a JSON body {"name", "category", "price", "stock"}: a name of 1 to 100 characters, a price and a whole stock of 0 or more'
)

/**
 * The catalogue with the product added, and the answer; `undefined` when the product is not one
 * the catalogue takes (the schema says only the fields' types).
 */
export const addProduct = (
  products: ReadonlyArray<Product>,
  input: typeof NewProduct.Type
): { readonly products: ReadonlyArray<Product>; readonly answer: Answer } | undefined => {
  const { name, category, price, stock } = input
  const valid =
    name.trim().length > 0 &&
    name.length <= 100 &&
    Number.isFinite(price) &&
    price >= 0 &&
    Number.isSafeInteger(stock) &&
    stock >= 0
  if (!valid) return undefined
  const id = products.reduce((max, p) => Math.max(max, p.id), 0) + 1
  const product: Product = { id, name, category, price, sale_price: null, stock }
  return {
    products: [...products, product],
    answer: { status: 201, body: { success: true, data: product, message: `Created ${name}` } }
  }
}

/** `/admin/stats`: counts and value of the catalogue. */
export const catalogueStats = (products: ReadonlyArray<Product>): Answer => {
  const categories: Record<string, number> = {}
  for (const p of products) categories[p.category] = (categories[p.category] ?? 0) + 1
  return succeedWith({
    products: products.length,
    out_of_stock: products.filter((p) => p.stock === 0).length,
    inventory_value: products.reduce((sum, p) => sum + p.price * p.stock, 0),
    categories
  })
}

/** An integer query parameter of `url` within `0..max`, else `fallback`. */
export const intParam = (url: string, name: string, fallback: number, max: number): number => {
  const value = Number(urlOf(url).searchParams.get(name) ?? fallback)
  return Number.isInteger(value) && value >= 0 ? Math.min(value, max) : fallback
}

/** `/slow?ms=`: how long to wait (default 1 s, at most 5 s): the client's timeout is shorter. */
export const slowDelay = (url: string): number => intParam(url, "ms", 1_000, 5_000)

export const waited = (ms: number): Answer => succeedWith({ waited_ms: ms })

export const MALFORMED_UPLOAD = failWith(400, "Malformed multipart body")

/**
 * `/files`: reads a `multipart/form-data` upload and answers what it got, each field's value, each
 * file's name, type and size. Nothing is kept. Never rejects.
 */
export const readUpload = async (contentType: string, body: ArrayBuffer): Promise<Answer> => {
  if (!contentType.startsWith("multipart/form-data")) {
    return failWith(415, "Expected multipart/form-data")
  }
  try {
    const form = await new Response(body, { headers: { "content-type": contentType } }).formData()
    const parts = [...form.entries()].map(([field, value]) =>
      typeof value === "string"
        ? { field, value }
        : { field, name: value.name, type: value.type, size: value.size }
    )
    return succeedWith(parts, { message: `Received ${parts.length} parts` })
  } catch {
    return MALFORMED_UPLOAD
  }
}

export const FLAKY_KEY_REQUIRED = failWith(400, 'Query parameter "key" is required')

/** `/flaky?failures=`: how many times a key fails before it succeeds (default 2, at most 5). */
export const flakyFailures = (url: string): number => intParam(url, "failures", 2, 5)

/** How many requests each `/flaky` key has had since it last succeeded. */
export type FlakyCounts = ReadonlyMap<string, number>

/**
 * A request for a flaky key: which attempt it is, and the counts after it. A key that succeeds
 * starts over, so an example run again against the same server sees the same failures first.
 */
export const flakyAttempt = (
  counts: FlakyCounts,
  key: string,
  failures: number
): readonly [attempt: number, counts: FlakyCounts] => {
  const attempt = (counts.get(key) ?? 0) + 1
  const next = new Map(counts)
  if (attempt > failures) next.delete(key)
  else next.set(key, attempt)
  return [attempt, next]
}

/** The answer to the `attempt`-th request for a key that fails `failures` times first. */
export const flakyAnswer = (attempt: number, failures: number): Answer =>
  attempt <= failures
    ? failWith(503, `Temporarily unavailable (attempt ${attempt})`)
    : succeedWith({ attempts: attempt }, { message: `Succeeded on attempt ${attempt}` })
