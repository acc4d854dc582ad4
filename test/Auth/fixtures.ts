/**
 * Shared pieces of the auth tests: a counting validator with known sessions and failure modes, a
 * router using every guard, and a helper that calls a real server.
 */

import type { HttpApp } from "@effect/platform"
import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import type { HttpServerRequest } from "@effect/platform/HttpServerRequest"
import { NodeHttpServer } from "@effect/platform-node"
import type { Scope } from "effect"
import { Deferred, Effect, Layer, Option, Redacted } from "effect"
import { SessionValidator, SessionValidatorUnavailable } from "../../src/v3/Auth/index.js"
import { BOOM, DOWN, type Reply, SESSIONS, SLOW } from "./shared/sessions.js"

export { BOOM, DOWN, type Reply, SESSIONS, SLOW }

/** Counts validator calls; `asked` resolves the first time the slow id is looked up. */
export interface Probe {
  calls: number
  readonly asked: Deferred.Deferred<void>
}

export const makeProbe = Effect.map(Deferred.make<void>(), (asked): Probe => ({ calls: 0, asked }))

export const probeValidator = (probe: Probe): Layer.Layer<SessionValidator> =>
  Layer.succeed(SessionValidator, {
    validate: (id) =>
      Effect.suspend(() => {
        probe.calls++
        const raw = Redacted.value(id)
        if (raw === DOWN) {
          return Effect.fail(new SessionValidatorUnavailable({ reason: "Failure" }))
        }
        if (raw === BOOM) return Effect.die(new Error("validator crashed"))
        if (raw === SLOW)
          return Effect.zipRight(Deferred.succeed(probe.asked, undefined), Effect.never)
        return Effect.succeed(
          Object.hasOwn(SESSIONS, raw) ? Option.some(SESSIONS[raw]!) : Option.none()
        )
      })
  })

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
      body: contentType === "application/json" ? JSON.parse(text) : text
    }
  }).pipe(Effect.orDie)
