/**
 * The server measured by bench/auth.ts, in its own process: one `@effect/platform-node` server with
 * the same handler unguarded (`/open`), under `requireAuth` with the memory validator (`/memory`)
 * and under `requireAuth` with `cached(http(...))` (`/cached`), whose remote auth service is a
 * plain `node:http` server in this process. Sends `{ port }` to the parent over IPC.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Context, Effect, Layer } from "effect"
import { CurrentUser, requireAuth, SessionValidator } from "../src/Auth/index.js"

export const SESSION_ID = "bench-session-0123456789abcdef"
const session = { user_id: "u1", email: "u1@example.com", user_type: "user", permissions: ["read"] }

const startAuthService = () =>
  Effect.acquireRelease(
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

/** Builds a validator layer once (in the server's scope), so routes share one service. */
const validatorService = <E, R>(layer: Layer.Layer<SessionValidator, E, R>) =>
  Effect.map(Layer.build(layer), (context) => Context.get(context, SessionValidator))

const main = Effect.gen(function* () {
  const authService = yield* startAuthService()
  const authUrl = `http://127.0.0.1:${(authService.address() as AddressInfo).port}/session`
  const memory = yield* validatorService(SessionValidator.memory({ [SESSION_ID]: session }))
  const cached = yield* validatorService(
    SessionValidator.http({ url: authUrl }).pipe(
      SessionValidator.cached({ ttl: "5 minutes", negativeTtl: "5 seconds" }),
      Layer.provide(NodeHttpClient.layerUndici)
    )
  )
  const open = Effect.sync(() => HttpServerResponse.unsafeJson({ id: "u1" }))
  const me = Effect.map(CurrentUser, (user) => HttpServerResponse.unsafeJson({ id: user.user_id }))
  const app = HttpRouter.empty.pipe(
    HttpRouter.get("/open", open),
    HttpRouter.get(
      "/memory",
      me.pipe(requireAuth(), Effect.provideService(SessionValidator, memory))
    ),
    HttpRouter.get(
      "/cached",
      me.pipe(requireAuth(), Effect.provideService(SessionValidator, cached))
    )
  )
  const server = yield* HttpServer.HttpServer
  yield* HttpServer.serveEffect(app)
  const address = server.address
  if (address._tag !== "TcpAddress") return yield* Effect.die(new Error("expected a TCP address"))
  process.send?.({ port: address.port })
  return yield* Effect.never
}).pipe(
  Effect.scoped,
  Effect.provide(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

NodeRuntime.runMain(main)
