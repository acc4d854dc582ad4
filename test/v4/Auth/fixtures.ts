/**
 * The Effect 4 auth tests' fixtures: the counting validator of test/Auth/shared/probe.ts as a
 * layer, servers on `@effect/platform-node`'s `NodeHttpServer.layerTest`, and a helper that calls
 * them.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import {
  HttpClient,
  HttpClientRequest,
  HttpRouter,
  HttpServer,
  type HttpServerRequest,
  type HttpServerResponse
} from "effect/http"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { SessionValidator } from "../../../src/Auth/index.js"
import { makeProbe, type Probe, probeService } from "../../Auth/shared/probe.js"
import { BOOM, DOWN, type Reply, SESSIONS, SLOW } from "../../Auth/shared/sessions.js"

export { BOOM, DOWN, makeProbe, type Probe, type Reply, SESSIONS, SLOW }

export const probeValidator = (probe: Probe): Layer.Layer<SessionValidator> =>
  Layer.succeed(SessionValidator, probeService(probe))

/** Serves `app` on a real `@effect/platform-node` server (port 0) for the rest of the scope. */
export const serve = <E>(
  app: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E,
    SessionValidator | HttpServerRequest.HttpServerRequest | Scope.Scope
  >,
  validator: Layer.Layer<SessionValidator>
): Effect.Effect<void, never, Scope.Scope | HttpServer.HttpServer> =>
  HttpServer.serveEffect(app.pipe(Effect.provide(validator)))

/** Serves `HttpRouter` routes on the test server for the rest of the scope. */
export const serveRoutes = <E>(
  routes: Layer.Layer<
    never,
    E,
    | HttpRouter.HttpRouter
    | SessionValidator
    | HttpRouter.Request<"Requires", SessionValidator>
    | HttpRouter.Request<"Error", unknown>
  >,
  validator: Layer.Layer<SessionValidator>
) =>
  Layer.build(
    HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(validator)
    )
  )

export const ServerLayer = NodeHttpServer.layerTest

export const call = (
  path: string,
  options: {
    readonly method?: "GET" | "POST" | "DELETE"
    readonly headers?: Record<string, string>
  } = {}
): Effect.Effect<Reply, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.make(options.method ?? "GET")(path, {
      headers: options.headers ?? {}
    })
    const response = yield* client.execute(request)
    const text = yield* response.text
    const contentType = response.headers["content-type"]
    return {
      status: response.status,
      contentType,
      cacheControl: response.headers["cache-control"],
      body: contentType === "application/json" ? JSON.parse(text) : text
    }
  }).pipe(Effect.orDie)
