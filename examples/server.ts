/**
 * The demo server on Effect 4: the routes of `app.ts` served by `effect/http`'s `HttpRouter` on an
 * `@effect/platform-node` HTTP server. (The Effect 3 server is `v3/server.ts`.)
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
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { HttpRouter, HttpServer } from "effect/http"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import * as Scope from "effect/Scope"
import { AppRoutes } from "./app.js"
import { banner, optionsFromCommandLine, type ServerOptions } from "./serverOptions.js"
import { sessionsLayer } from "./sessions.js"

export type { ServerOptions }

/**
 * The whole server as a `Layer`: built, it listens; released, it closes. The sessions are provided
 * outside `HttpRouter.serve`, so that every route and guard shares one store.
 */
export const ServerLive = (options: ServerOptions = {}) =>
  HttpRouter.serve(AppRoutes, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(sessionsLayer(options.sessions)),
    Layer.provideMerge(
      NodeHttpServer.layer(createServer, {
        port: options.port ?? 0,
        host: options.host ?? "127.0.0.1"
      })
    )
  )

/** Starts the server for the rest of the scope and gives its base URL. */
export const launch = (options?: ServerOptions) =>
  Effect.map(Layer.build(ServerLive(options)), (context) =>
    HttpServer.formatAddress(Context.get(context, HttpServer.HttpServer).address)
  )

export interface RunningServer {
  readonly url: string
  readonly close: () => Promise<void>
}

/** `launch` for Promise code: starts the server; `close()` stops it. */
export const startServer = async (options?: ServerOptions): Promise<RunningServer> => {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.provide(launch(options), scope)).catch(
    async (error) => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      throw error
    }
  )
  return { url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/**
 * Ctrl-C is how this server stops: exit code 0 then, as on Effect 3 (Effect 4's `runMain` answers
 * 130 to an interruption).
 */
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
    ? onExit(0)
    : Runtime.defaultTeardown(exit, onExit)

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const options = optionsFromCommandLine()
  Effect.gen(function* () {
    yield* Console.log(banner(yield* launch(options), options))
    return yield* Effect.never
  }).pipe(Effect.scoped, NodeRuntime.runMain({ teardown }))
}
