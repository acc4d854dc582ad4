/**
 * The demo app's routes. Each guard from `svc-sdk/Auth` wraps one handler and gives it the user:
 * the handler never reads a session id itself (except `/logout`, which must know which one to
 * revoke). Sessions come from a `SessionStore`, checked by `SessionStore.validator`.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { QueryParseError } from "svc-sdk/Query"
import {
  AuthContext,
  CurrentUser,
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType,
  SessionStore
} from "svc-sdk/v3/Auth"
import { answerQuery, PRODUCTS, type Product, ProductQueryError } from "./products.js"
import { authenticate, sessionOf } from "./users.js"

/** The session cookie: invisible to page scripts (`HttpOnly`), not sent on cross-site posts. */
const COOKIE = { httpOnly: true, sameSite: "lax", path: "/" } as const

/** Error bodies have the same shape as the guards' own: `{"error": "..."}`. */
const failWith = (status: number, error: string) =>
  HttpServerResponse.unsafeJson({ error }, { status })

/** Success bodies are envelopes, which the client lifts into its `ApiResponse`. */
const succeedWith = (
  data: unknown,
  extra: { readonly message?: string; readonly meta?: unknown } = {}
) => HttpServerResponse.unsafeJson({ success: true, data, ...extra })

const searchParam = (name: string) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    new URL(request.url, "http://localhost").searchParams.get(name)
  )

/** An integer query parameter within bounds, else `fallback`. */
const intParam = (name: string, fallback: number, max: number) =>
  Effect.map(searchParam(name), (raw) => {
    const value = Number(raw ?? fallback)
    return Number.isInteger(value) && value >= 0 ? Math.min(value, max) : fallback
  })

const LoginBody = Schema.Struct({ email: Schema.String, password: Schema.String })

const login = Effect.gen(function* () {
  const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(LoginBody))
  if (Option.isNone(body)) return failWith(400, 'Expected a JSON body {"email", "password"}')
  const user = yield* Effect.promise(() => authenticate(body.value.email, body.value.password))
  if (user === undefined) return failWith(401, "Invalid email or password")
  const id = yield* Effect.flatMap(SessionStore, (sessions) => sessions.create(sessionOf(user)))
  const { user_id, name, user_type } = user
  // The id goes in the body too, for clients without cookies (they call `setSessionId`).
  return succeedWith(
    { user_id, name, user_type, session_id: Redacted.value(id) },
    { message: `Welcome, ${name}` }
  ).pipe(HttpServerResponse.unsafeSetCookie("session_id", Redacted.value(id), COOKIE))
})

/** The id this request authenticated with, read where the guards read it. */
const presentedSessionId = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const url = new URL(request.url, "http://localhost")
  return (
    request.headers["x-session-id"] ||
    request.cookies.session_id ||
    url.searchParams.get("session_id") ||
    ""
  )
})

const logout = Effect.gen(function* () {
  const id = yield* presentedSessionId
  yield* Effect.flatMap(SessionStore, (sessions) => sessions.revoke(Redacted.make(id)))
  return succeedWith(null, { message: "Logged out" }).pipe(
    HttpServerResponse.expireCookie("session_id", COOKIE)
  )
}).pipe(requireAuth())

/** Sign out everywhere: every session of the user, on every instance sharing the store. */
const logoutEverywhere = Effect.gen(function* () {
  const { user_id } = yield* CurrentUser
  const ended = yield* Effect.flatMap(SessionStore, (sessions) => sessions.revokeUser(user_id))
  return succeedWith({ sessions: ended }, { message: "Logged out everywhere" }).pipe(
    HttpServerResponse.expireCookie("session_id", COOKIE)
  )
}).pipe(requireAuth())

const me = Effect.gen(function* () {
  const { session } = yield* CurrentUser
  const { user_id, email, name, user_type, permissions } = session
  return succeedWith({ user_id, email, name, user_type, permissions })
}).pipe(requireAuth())

const isBadQuery = (error: unknown): error is QueryParseError | ProductQueryError =>
  error instanceof QueryParseError || error instanceof ProductQueryError

const listProducts = (catalogue: Ref.Ref<ReadonlyArray<Product>>) =>
  Effect.gen(function* () {
    const who = yield* AuthContext
    const request = yield* HttpServerRequest.HttpServerRequest
    const products = yield* Ref.get(catalogue)
    const page = yield* Effect.try({
      try: () => answerQuery(products, new URL(request.url, "http://localhost")),
      catch: (error) => error
    })
    const message = who.is_guest ? "Browsing as a guest" : `Browsing as ${who.session.name}`
    return succeedWith(page.data, { meta: page.meta, message })
  }).pipe(
    Effect.catchIf(isBadQuery, (error) => Effect.succeed(failWith(400, error.message))),
    Effect.orDie,
    optionalAuth()
  )

const deleteProduct = (catalogue: Ref.Ref<ReadonlyArray<Product>>) =>
  Effect.gen(function* () {
    const id = Number((yield* HttpRouter.params).id)
    const products = yield* Ref.get(catalogue)
    const product = products.find((p) => p.id === id)
    if (product === undefined) return failWith(404, "Product not found")
    yield* Ref.set(
      catalogue,
      products.filter((p) => p !== product)
    )
    return succeedWith(product, { message: `Deleted ${product.name}` })
  }).pipe(requirePermission("products:delete"))

const adminStats = (catalogue: Ref.Ref<ReadonlyArray<Product>>) =>
  Effect.gen(function* () {
    const products = yield* Ref.get(catalogue)
    const categories: Record<string, number> = {}
    for (const p of products) categories[p.category] = (categories[p.category] ?? 0) + 1
    return succeedWith({
      products: products.length,
      out_of_stock: products.filter((p) => p.stock === 0).length,
      inventory_value: products.reduce((sum, p) => sum + p.price * p.stock, 0),
      categories
    })
  }).pipe(requireUserType(["admin"]))

/** Answers after `ms` milliseconds (at most 5 s): the client's timeout is shorter. */
const slow = Effect.gen(function* () {
  const ms = yield* intParam("ms", 1_000, 5_000)
  yield* Effect.sleep(ms)
  return succeedWith({ waited_ms: ms })
})

/**
 * Reads a `multipart/form-data` upload and answers what it got: each field's value, each file's
 * name, type and size. Nothing is kept.
 */
const upload = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = yield* request.arrayBuffer
  const type = request.headers["content-type"] ?? ""
  if (!type.startsWith("multipart/form-data")) return failWith(415, "Expected multipart/form-data")
  const form = yield* Effect.tryPromise(() =>
    new Response(body, { headers: { "content-type": type } }).formData()
  )
  const parts = [...form.entries()].map(([field, value]) =>
    typeof value === "string"
      ? { field, value }
      : { field, name: value.name, type: value.type, size: value.size }
  )
  return succeedWith(parts, { message: `Received ${parts.length} parts` })
}).pipe(Effect.catchAll(() => Effect.succeed(failWith(400, "Malformed multipart body"))))

/**
 * Fails with 503 the first `failures` times (default 2, at most 5) a `key` is asked for, then
 * succeeds and says how many attempts it took: the client's retry is what makes it succeed.
 */
const flaky = (attempts: Ref.Ref<HashMap.HashMap<string, number>>) =>
  Effect.gen(function* () {
    const key = yield* searchParam("key")
    if (!key) return failWith(400, 'Query parameter "key" is required')
    const failures = yield* intParam("failures", 2, 5)
    const attempt = yield* Ref.modify(attempts, (counts) => {
      const next = Option.getOrElse(HashMap.get(counts, key), () => 0) + 1
      return [next, HashMap.set(counts, key, next)] as const
    })
    return attempt <= failures
      ? failWith(503, `Temporarily unavailable (attempt ${attempt})`)
      : succeedWith({ attempts: attempt }, { message: `Succeeded on attempt ${attempt}` })
  })

/**
 * The app: a router over its own catalogue (deletions last as long as the app) and flaky-endpoint
 * counters. Needs `SessionStore` and `SessionValidator`.
 */
export const makeApp = Effect.gen(function* () {
  const catalogue = yield* Ref.make(PRODUCTS)
  const attempts = yield* Ref.make(HashMap.empty<string, number>())
  return HttpRouter.empty.pipe(
    HttpRouter.post("/login", login),
    HttpRouter.post("/logout", logout),
    HttpRouter.post("/logout/all", logoutEverywhere),
    HttpRouter.get("/me", me),
    HttpRouter.get("/products", listProducts(catalogue)),
    HttpRouter.del("/products/:id", deleteProduct(catalogue)),
    HttpRouter.get("/admin/stats", adminStats(catalogue)),
    HttpRouter.get("/slow", slow),
    HttpRouter.post("/files", upload),
    HttpRouter.get("/flaky", flaky(attempts)),
    Effect.catchTags({
      RouteNotFound: () => Effect.succeed(failWith(404, "Not found")),
      SessionStoreError: () => Effect.succeed(failWith(500, "Session store unavailable"))
    })
  )
})
