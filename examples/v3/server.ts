/**
 * The demo server on Effect 3: the app of `app.ts` on an `@effect/platform-node` HTTP server.
 * (`../server.ts` is the same server on Effect 4.)
 *
 * `npm run demo:server` keeps it up on http://127.0.0.1:3000 for trying by hand:
 *
 *   npm run demo:server                                        # sessions in memory
 *   npm run demo:server -- --store file --dir .tmp/demo-sessions  # sessions survive a restart
 *   npm run demo:server -- --store redis   # shared by every instance on REDIS_URL
 *   PORT=8080 SESSION_STORE=file SESSION_DIR=/tmp/s npm run demo:server
 */
import { createServer } from "node:http"
import { pathToFileURL } from "node:url"
import * as HttpServer from "@effect/platform/HttpServer"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { banner, optionsFromCommandLine, type ServerOptions } from "../serverOptions.js"
import { makeApp } from "./app.js"
import { sessionsLayer } from "./sessions.js"

export type { ServerOptions }

/** The whole server as a `Layer`: built, it listens; released, it closes. */
export const ServerLive = (options: ServerOptions = {}) =>
  Layer.unwrapEffect(Effect.map(makeApp, (app) => HttpServer.serve(app))).pipe(
    Layer.provide(sessionsLayer(options.sessions)),
    Layer.provideMerge(
      NodeHttpServer.layer(createServer, {
        port: options.port ?? 0,
        host: options.host ?? "127.0.0.1"
      })
    )
  )

const urlOf = (address: HttpServer.Address) =>
  address._tag === "TcpAddress"
    ? `http://${address.hostname}:${address.port}`
    : `http+unix://${address.path}`

/** Starts the server for the rest of the scope and gives its base URL. */
export const launch = (options?: ServerOptions) =>
  Effect.map(Layer.build(ServerLive(options)), (context) =>
    urlOf(Context.get(context, HttpServer.HttpServer).address)
  )

export interface RunningServer {
  readonly url: string
  readonly close: () => Promise<void>
}

/** `launch` for Promise code: starts the server; `close()` stops it. */
export const startServer = async (options?: ServerOptions): Promise<RunningServer> => {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.extend(launch(options), scope)).catch(async (error) => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  })
  return { url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const options = optionsFromCommandLine()
  Effect.gen(function* () {
    yield* Console.log(banner(yield* launch(options), options))
    return yield* Effect.never
  }).pipe(Effect.scoped, NodeRuntime.runMain)
}
