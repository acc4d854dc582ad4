/**
 * The demo app's routes on Effect 4 (`effect/http`, `svc-sdk/Auth`). `HttpRouter` is layer-based:
 * each route is a layer, and the guards come in both forms. The account routes all need a session,
 * so `AuthMiddleware.requireAuth()` guards them as router middleware; the catalogue's routes each
 * wrap their handler in the guard they need (`handler.pipe(requirePermission(...))`). Either way a
 * handler asks for `CurrentUser` (or `AuthContext`) and never reads a session id itself: `/logout`
 * revokes the one the guard read (`CurrentUser.session_id`). Sessions come from a `SessionStore`, checked by
 * `SessionStore.validator`.
 *
 * What each route answers is written once for both lines in `answers.ts`; the Effect 3 app is
 * `v3/app.ts`.
 */
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import {
  AuthContext,
  AuthMiddleware,
  CurrentUser,
  clearSessionCookie,
  LoginThrottle,
  type LoginThrottleError,
  optionalAuth,
  requirePermission,
  requireUserType,
  SessionStore,
  type SessionStoreError,
  setSessionCookie
} from "svc-sdk/Auth"
import {
  type Answer,
  addProduct,
  BAD_LOGIN_BODY,
  BAD_PRODUCT_BODY,
  BAD_REFRESH_BODY,
  COOKIE,
  catalogueStats,
  deletedProduct,
  EXPIRED,
  FLAKY_KEY_REQUIRED,
  type FlakyCounts,
  flakyAnswer,
  flakyAttempt,
  flakyFailures,
  LOGGED_OUT,
  LoginBody,
  loggedOutEverywhere,
  MALFORMED_UPLOAD,
  NewProduct,
  NOT_FOUND,
  PRODUCT_NOT_FOUND,
  productsPage,
  RefreshBody,
  readUpload,
  STORE_UNAVAILABLE,
  slowDelay,
  throttleKeys,
  urlOf,
  WRONG_CREDENTIALS,
  waited,
  whoIs
} from "./answers.js"
import * as Devices from "./devices.js"
import {
  BAD_CHAT_BODY,
  ChatBody,
  chat,
  closeConnection,
  download,
  feed,
  isStreamed,
  type Streamed
} from "./live.js"
import { PRODUCTS, type Product } from "./products.js"
import { RefreshTokens } from "./sessions.js"
import { authenticate } from "./users.js"

const respond = ({ status, body }: Answer) => HttpServerResponse.jsonUnsafe(body, { status })

/** A streamed answer as it is made (`live.ts`), or a JSON one. */
const respondStreamed = (answer: Streamed | Answer) =>
  isStreamed(answer)
    ? HttpServerResponse.stream(answer.stream, {
        status: answer.status,
        contentType: answer.contentType,
        headers: answer.headers
      })
    : respond(answer)
/** The sessions the guards read and the devices' refresh tokens (`devices.ts`). */
const stores = Effect.all({ sessions: SessionStore, refreshTokens: RefreshTokens })

/**
 * A store that fails outside the guards (login, logout, devices) makes a 500, not a crash; so do
 * the login throttle's counters (it fails closed: no attempt goes through unchecked).
 */
const orStoreUnavailable = <E, R>(
  self: Effect.Effect<HttpServerResponse.HttpServerResponse, E | SessionStoreError, R>
) => Effect.catchTag(self, "SessionStoreError", () => Effect.succeed(respond(STORE_UNAVAILABLE)))

const orThrottleUnavailable = <E, R>(
  self: Effect.Effect<HttpServerResponse.HttpServerResponse, E | LoginThrottleError, R>
) => Effect.catchTag(self, "LoginThrottleError", () => Effect.succeed(respond(STORE_UNAVAILABLE)))

/**
 * Login, throttled: a locked account or address fails with `TooManyAttempts`, which answers 429
 * with `Retry-After` by itself; only a wrong password counts. A request that presented a live
 * session of the same user (header or cookie, as `optionalAuth` reads it) has it rotated: a new id,
 * the old one ended at once (session fixation); any other gets a new session.
 */
const login = Effect.gen(function* () {
  const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(LoginBody))
  if (Option.isNone(body)) return respond(BAD_LOGIN_BODY)
  const request = yield* HttpServerRequest.HttpServerRequest
  const { account, keys } = throttleKeys(
    body.value.email,
    Option.getOrUndefined(request.remoteAddress)
  )
  const throttle = yield* LoginThrottle
  yield* throttle.check(keys)
  const user = yield* Effect.promise(() => authenticate(body.value.email, body.value.password))
  if (user === undefined) {
    yield* throttle.failure(keys)
    return respond(WRONG_CREDENTIALS)
  }
  yield* throttle.success(account)
  const presented = yield* AuthContext
  const same = !presented.is_guest && presented.user_id === user.user_id
  const signedIn = yield* Devices.signIn(
    yield* stores,
    user,
    same ? Option.some(presented.session_id) : Option.none()
  )
  return respond(signedIn.answer).pipe(setSessionCookie(signedIn.id, COOKIE))
}).pipe(orStoreUnavailable, orThrottleUnavailable, optionalAuth())

/**
 * Spends a device's refresh token for a new session id (and the next token); `refreshes` counts
 * the refreshes made, which the story checks: a burst of requests refreshes once.
 */
const refresh = (refreshes: Ref.Ref<number>) =>
  Effect.gen(function* () {
    const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(RefreshBody))
    if (Option.isNone(body)) return respond(BAD_REFRESH_BODY)
    const { id, answer } = yield* Devices.refresh(
      yield* stores,
      body.value.refresh_token,
      Ref.updateAndGet(refreshes, (n) => n + 1)
    )
    // an answer with credentials in it is never cached
    const response = respond(answer).pipe(HttpServerResponse.setHeader("cache-control", "no-store"))
    return Option.isSome(id) ? response.pipe(setSessionCookie(id.value, COOKIE)) : response
  }).pipe(orStoreUnavailable)

/** Ends this device: its refresh token, and the session the guard read (`CurrentUser.session_id`). */
const logout = Effect.gen(function* () {
  yield* Devices.signOut(yield* stores, yield* CurrentUser)
  return respond(LOGGED_OUT).pipe(clearSessionCookie(COOKIE))
}).pipe(orStoreUnavailable)

/** Sign out everywhere: every device of the user, on every instance sharing the stores. */
const logoutEverywhere = Effect.gen(function* () {
  const { user_id } = yield* CurrentUser
  const ended = yield* Devices.signOutEverywhere(yield* stores, user_id)
  return respond(loggedOutEverywhere(ended)).pipe(clearSessionCookie(COOKIE))
}).pipe(orStoreUnavailable)

/** The user's devices (`handle` names one for `DELETE /sessions/:handle`; `current` is this one). */
const listDevices = Effect.gen(function* () {
  return respond(yield* Devices.listDevices(yield* stores, yield* CurrentUser))
}).pipe(orStoreUnavailable)

/** Signs one device out; another user's handle ends nothing (404). */
const endDevice = Effect.gen(function* () {
  const { user_id } = yield* CurrentUser
  const { handle } = yield* HttpRouter.params
  return respond(yield* Devices.endDeviceByHandle(yield* stores, user_id, handle ?? ""))
}).pipe(orStoreUnavailable)

/** Signs out every device but this one. */
const endOtherDevices = Effect.gen(function* () {
  return respond(yield* Devices.endOtherDevices(yield* stores, yield* CurrentUser))
}).pipe(orStoreUnavailable)

/**
 * Demo only: ends the session id presented, as its idle timeout would, and keeps its device, so
 * that the story can show a refresh without waiting an hour. A real server has no such route.
 */
const expire = Effect.gen(function* () {
  const { session_id } = yield* CurrentUser
  yield* Effect.flatMap(SessionStore, (sessions) => sessions.revoke(session_id))
  return respond(EXPIRED)
}).pipe(orStoreUnavailable)

const me = Effect.map(CurrentUser, ({ session }) => respond(whoIs(session)))

/**
 * The live feed: resumes after the request's `Last-Event-ID`; `?drop=N` closes the socket after
 * event N, as a network failure would.
 */
const events = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  respondStreamed(
    feed(request.url, request.headers["last-event-id"], () =>
      closeConnection(NodeHttpServerRequest.toServerResponse(request))
    )
  )
)

/** An answer streamed token by token. */
const chatAnswer = Effect.gen(function* () {
  const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(ChatBody))
  return respondStreamed(Option.isNone(body) ? BAD_CHAT_BODY : chat(body.value.prompt))
})

/** The routes for a signed-in user, all behind one `requireAuth` router middleware. */
const AccountRoutes = Layer.mergeAll(
  HttpRouter.add("POST", "/logout", logout),
  HttpRouter.add("POST", "/logout/all", logoutEverywhere),
  HttpRouter.add("GET", "/me", me),
  HttpRouter.add("GET", "/events", events),
  HttpRouter.add("POST", "/chat", chatAnswer),
  HttpRouter.add("GET", "/sessions", listDevices),
  HttpRouter.add("POST", "/sessions/others", endOtherDevices),
  HttpRouter.add("DELETE", "/sessions/:handle", endDevice),
  HttpRouter.add("POST", "/demo/expire", expire)
).pipe(Layer.provide(AuthMiddleware.requireAuth().layer))

const listProducts = (catalogue: Ref.Ref<ReadonlyArray<Product>>) =>
  Effect.gen(function* () {
    const who = yield* AuthContext
    const request = yield* HttpServerRequest.HttpServerRequest
    const products = yield* Ref.get(catalogue)
    return respond(productsPage(products, request.url, who.is_guest ? undefined : who.session.name))
  }).pipe(optionalAuth())

const createProduct = (catalogue: Ref.Ref<ReadonlyArray<Product>>) =>
  Effect.gen(function* () {
    const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(NewProduct))
    if (Option.isNone(body)) return respond(BAD_PRODUCT_BODY)
    const added = yield* Ref.modify(catalogue, (products) => {
      const next = addProduct(products, body.value)
      return [next?.answer, next?.products ?? products]
    })
    return respond(added ?? BAD_PRODUCT_BODY)
  }).pipe(requirePermission("products:create"))

const deleteProduct = (catalogue: Ref.Ref<ReadonlyArray<Product>>) =>
  Effect.gen(function* () {
    const id = Number((yield* HttpRouter.params).id)
    const products = yield* Ref.get(catalogue)
    const product = products.find((p) => p.id === id)
    if (product === undefined) return respond(PRODUCT_NOT_FOUND)
    yield* Ref.set(
      catalogue,
      products.filter((p) => p !== product)
    )
    return respond(deletedProduct(product))
  }).pipe(requirePermission("products:delete"))

const adminStats = (catalogue: Ref.Ref<ReadonlyArray<Product>>) =>
  Effect.map(Ref.get(catalogue), (products) => respond(catalogueStats(products))).pipe(
    requireUserType(["admin"])
  )

/** The catalogue (additions and deletions last as long as the server), each route with its own guard. */
const CatalogueRoutes = HttpRouter.addAll(
  Effect.map(Ref.make(PRODUCTS), (catalogue) => [
    HttpRouter.route("GET", "/products", listProducts(catalogue)),
    HttpRouter.route("POST", "/products", createProduct(catalogue)),
    HttpRouter.route("DELETE", "/products/:id", deleteProduct(catalogue)),
    HttpRouter.route("GET", "/admin/stats", adminStats(catalogue))
  ])
)

/** Answers after `ms` milliseconds (at most 5 s): the client's timeout is shorter. */
const slow = Effect.gen(function* () {
  const ms = slowDelay((yield* HttpServerRequest.HttpServerRequest).url)
  yield* Effect.sleep(ms)
  return respond(waited(ms))
})

/** Reads a `multipart/form-data` upload and answers what it got. Nothing is kept. */
const upload = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = yield* request.arrayBuffer
  const type = request.headers["content-type"] ?? ""
  return respond(yield* Effect.promise(() => readUpload(type, body)))
}).pipe(Effect.catch(() => Effect.succeed(respond(MALFORMED_UPLOAD))))

/**
 * Fails with 503 the first `failures` times a `key` is asked for, then succeeds and says how many
 * attempts it took (and the key starts over): the client's retry is what makes it succeed.
 */
const flaky = (attempts: Ref.Ref<FlakyCounts>) =>
  Effect.gen(function* () {
    const { url } = yield* HttpServerRequest.HttpServerRequest
    const key = urlOf(url).searchParams.get("key")
    if (!key) return respond(FLAKY_KEY_REQUIRED)
    const failures = flakyFailures(url)
    const attempt = yield* Ref.modify(attempts, (counts) => flakyAttempt(counts, key, failures))
    return respond(flakyAnswer(attempt, failures))
  })

/** N bytes with a `Content-Length`, as they are made: open to anyone, like a public file. */
const downloadBytes = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  respondStreamed(download(request.url))
)

/**
 * Routes open to anyone: login, refresh, and the endpoints that show the client's timeout, retry,
 * upload and download.
 */
const OpenRoutes = HttpRouter.addAll(
  Effect.map(
    Effect.all([Ref.make<FlakyCounts>(new Map()), Ref.make(0)]),
    ([attempts, refreshes]) => [
      HttpRouter.route("POST", "/login", login),
      HttpRouter.route("POST", "/refresh", refresh(refreshes)),
      HttpRouter.route("GET", "/slow", slow),
      HttpRouter.route("POST", "/files", upload),
      HttpRouter.route("GET", "/flaky", flaky(attempts)),
      HttpRouter.route("GET", "/download", downloadBytes)
    ]
  )
)

/** Anything else: 404 with the same body shape as every other error. */
const NotFound = HttpRouter.add("*", "*", respond(NOT_FOUND))

/**
 * The app: its routes as one layer, for `HttpRouter.serve`. Its handlers need `SessionStore` and
 * its guards a `SessionValidator`, `/refresh` and the device routes `RefreshTokens`, and `/login`
 * a `LoginThrottle` (see `sessions.ts`).
 */
export const AppRoutes = Layer.mergeAll(AccountRoutes, CatalogueRoutes, OpenRoutes, NotFound)
