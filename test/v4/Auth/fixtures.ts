/**
 * Shared pieces of the Effect 4 auth tests: a counting validator with known sessions and failure
 * modes (the sessions and ids are test/Auth/shared's), servers on `@effect/platform-node`'s
 * `NodeHttpServer.layerTest`, and a helper that calls them.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Deferred from "effect/Deferred"
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
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { SessionValidator, SessionValidatorUnavailable } from "../../../src/Auth/index.js"
import { BOOM, DOWN, type Reply, SESSIONS, SLOW } from "../../Auth/shared/sessions.js"

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
          return Effect.andThen(Deferred.succeed(probe.asked, undefined), Effect.never)
        return Effect.succeed(
          Object.hasOwn(SESSIONS, raw) ? Option.some(SESSIONS[raw]!) : Option.none()
        )
      })
  })

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
      body: contentType === "application/json" ? JSON.parse(text) : text
    }
  }).pipe(Effect.orDie)
