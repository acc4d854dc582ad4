/**
 * The servers measured by bench/auth.ts, in their own process. Two `@effect/platform-node` servers,
 * each with the same JSON handler unguarded (`/open`), under `requireAuth` (`/guarded`) and under
 * the least middleware that provides a user (`/minimal`, the floor under any guard); the
 * validator is provided once per server, as an application would: the memory validator on one,
 * `cached(http(...))` on the other, whose remote auth service is a plain `node:http` server in this
 * process. With `REDIS_URL` set, a third server validates against `SessionStore.layerRedis`, and
 * its `/raw` route, unguarded, does one raw Redis `GET` per request instead. A
 * fourth serves the flapping run: its validator fails every third lookup. Sends the servers (port
 * and valid session id) to the parent over IPC.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import {
  HttpMiddleware,
  HttpRouter,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { NodeHttpClient, NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { Redis } from "ioredis"
import { CurrentUser, requireAuth, SessionStore, SessionValidator } from "svc-sdk/v3/Auth"

const SESSION_ID = "bench-session-0123456789abcdef"
const session = { user_id: "u1", email: "u1@example.com", user_type: "user", permissions: ["read"] }

const startAuthService = Effect.acquireRelease(
  Effect.async<ReturnType<typeof createServer>>((resume) => {
    const server = createServer((request, response) => {
      const known = request.headers["x-session-id"] === SESSION_ID
      response.writeHead(known ? 200 : 401, { "content-type": "application/json" })
      response.end(JSON.stringify(known ? session : { error: "Invalid session" }))
    })
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

/** The session of each id the bench sends, frozen: what `minimal` looks up. */
const sessions = new Map([[SESSION_ID, Object.freeze({ ...session })]])

/**
 * The least an Effect middleware can do to give a handler its user: read the header, look the
 * session up in a `Map`, provide the user (`Effect.provideService`). No validator, no isolation,
 * no check of the id: the floor under any guard on this line, which `requireAuth` is measured
 * beside.
 */
const minimal = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const id = request.headers["x-session-id"]
    const found = id === undefined ? undefined : sessions.get(id)
    if (found === undefined) return Effect.succeed(HttpServerResponse.empty({ status: 401 }))
    return Effect.provideService(app, CurrentUser, {
      ...found,
      session: found
    } as unknown as CurrentUser["Type"])
  })
)

/**
 * The same handler, unguarded, guarded and under `minimal`; the guarded ones read the user. With
 * `raw`, `/raw` runs it first, unguarded: the Redis server's baseline, one raw Redis GET per
 * request.
 */
const appWith = (raw: Effect.Effect<unknown> = Effect.void) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/open",
      Effect.sync(() => HttpServerResponse.unsafeJson({ id: "u1" }))
    ),
    HttpRouter.get(
      "/guarded",
      Effect.map(CurrentUser, (user) => HttpServerResponse.unsafeJson({ id: user.user_id })).pipe(
        requireAuth()
      )
    ),
    HttpRouter.get(
      "/minimal",
      Effect.map(CurrentUser, (user) => HttpServerResponse.unsafeJson({ id: user.user_id })).pipe(
        minimal
      )
    ),
    HttpRouter.get(
      "/raw",
      Effect.map(raw, () => HttpServerResponse.unsafeJson({ id: "u1" }))
    )
  )

/** Serves `app` on a new server (port 0) with `validator`; returns the port. */
const serveWith = <E, R>(
  validator: Layer.Layer<SessionValidator, E, R>,
  app: ReturnType<typeof appWith> = appWith()
) =>
  Effect.gen(function* () {
    const server = yield* NodeHttpServer.make(createServer, { port: 0, host: "127.0.0.1" })
    const services = yield* Layer.build(validator) // lives as long as the server
    yield* HttpServer.serveEffect(app).pipe(
      Effect.provide(services),
      Effect.provideService(HttpServer.HttpServer, server)
    )
    const address = server.address
    return address._tag === "TcpAddress" ? address.port : yield* Effect.die("not a TCP address")
  })

/** Every third lookup fails (unavailable), the others answer at once: a validator that flaps. */
const flapping = () => {
  let calls = 0
  return SessionValidator.fromPromise(async (id) => {
    calls++
    if (calls % 3 === 0) throw new Error("flap")
    return id === SESSION_ID ? session : null
  })
}

/**
 * A server over a Redis store, with one session created in it; its `/raw` route reads the same
 * session, as JSON under a plain key, with one `GET` of its own `ioredis` client.
 */
const serveRedis = (url: string) =>
  Effect.gen(function* () {
    const store = yield* Layer.build(SessionStore.layerRedis({ url }))
    const id = yield* Effect.flatMap(SessionStore, (sessions) => sessions.create(session)).pipe(
      Effect.provide(store)
    )
    const raw = yield* Effect.acquireRelease(
      Effect.sync(() => new Redis(url)),
      (client) => Effect.promise(() => client.quit())
    )
    yield* Effect.promise(() => raw.set("bench:raw-session", JSON.stringify(session)))
    const get = Effect.promise(() => raw.get("bench:raw-session")).pipe(
      Effect.map((text) => JSON.parse(text ?? "null"))
    )
    const port = yield* serveWith(
      SessionStore.validator.pipe(Layer.provide(Layer.succeedContext(store))),
      appWith(get)
    )
    return { port, id: Redacted.value(id) }
  })

const main = Effect.gen(function* () {
  const authService = yield* startAuthService
  const authUrl = `http://127.0.0.1:${(authService.address() as AddressInfo).port}/session`
  const memory = yield* serveWith(SessionValidator.memory({ [SESSION_ID]: session }))
  const cached = yield* serveWith(
    SessionValidator.http({ url: authUrl }).pipe(
      SessionValidator.cached({ ttl: "5 minutes", negativeTtl: "5 seconds" }),
      Layer.provide(NodeHttpClient.layerUndici)
    )
  )
  const redisUrl = process.env.REDIS_URL
  const redis = redisUrl === undefined ? undefined : yield* serveRedis(redisUrl)
  const flaky = yield* serveWith(flapping())
  process.send?.({
    memory: { port: memory, id: SESSION_ID },
    cached: { port: cached, id: SESSION_ID },
    flapping: { port: flaky, id: SESSION_ID },
    ...(redis === undefined ? {} : { redis })
  })
  return yield* Effect.never
}).pipe(Effect.scoped, Effect.provide(NodeHttpServer.layerContext))

NodeRuntime.runMain(main)
