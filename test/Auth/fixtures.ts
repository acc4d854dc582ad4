/**
 * The Effect 3 auth tests' fixtures: the counting validator of test/Auth/shared/probe.ts as a
 * layer, a real `@effect/platform-node` server (port 0), and a helper that calls it.
 */

import type { HttpApp } from "@effect/platform"
import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform/HttpServerRequest"
import { NodeHttpServer } from "@effect/platform-node"
import type { Scope } from "effect"
import { Effect, Layer } from "effect"
import { SessionValidator } from "../../src/v3/Auth/index.js"
import { makeProbe, type Probe, probeService } from "./shared/probe.js"
import { BOOM, DOWN, type Reply, SESSIONS, SLOW } from "./shared/sessions.js"

export { BOOM, DOWN, makeProbe, type Probe, type Reply, SESSIONS, SLOW }

export const probeValidator = (probe: Probe): Layer.Layer<SessionValidator> =>
  Layer.succeed(SessionValidator, probeService(probe))

/** Serves `app` on a real `@effect/platform-node` server (port 0) for the rest of the scope. */
export const serve = <E>(
  app: HttpApp.Default<E, SessionValidator | HttpServerRequest | Scope.Scope>,
  validator: Layer.Layer<SessionValidator>
): Effect.Effect<void, never, Scope.Scope | HttpServer.HttpServer> =>
  HttpServer.serveEffect(app).pipe(Effect.provide(validator))

export const ServerLayer = NodeHttpServer.layerTest

export const call = (
  path: string,
  options: { readonly method?: "GET" | "DELETE"; readonly headers?: Record<string, string> } = {}
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
