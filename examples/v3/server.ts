/**
 * The demo server: the app of `app.ts` on an `@effect/platform-node` HTTP server.
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
import { parseArgs } from "node:util"
import * as HttpServer from "@effect/platform/HttpServer"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { makeApp } from "./app.js"
import { type SessionsOption, sessionsLayer } from "./sessions.js"
import { DEMO_PASSWORDS } from "./users.js"

export interface ServerOptions {
  /** `0` picks a free port (what tests do). @default 0 */
  readonly port?: number
  /** @default "127.0.0.1" */
  readonly host?: string
  /** Where sessions live. @default { store: "memory" } */
  readonly sessions?: SessionsOption | undefined
}

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

const curlExamples = (url: string) => `svc-sdk demo server on ${url}  (Ctrl-C stops it)

Users (email / password): ${Object.entries(DEMO_PASSWORDS)
  .map(([email, password]) => `${email} / ${password}`)
  .join(", ")}

  curl '${url}/products?category=office&price[lte]=100&sort=-price&limit=3'
  curl -i -X POST ${url}/login -H 'Content-Type: application/json' \\
       -d '{"email":"bob@example.com","password":"bob-secret"}'
  curl ${url}/me -H 'X-Session-Id: <session_id from the login>'
  curl -X DELETE ${url}/products/3 -H 'X-Session-Id: <id>'   # bob may, carol may not
  curl ${url}/admin/stats -H 'X-Session-Id: <id>'            # alice only
  curl -X POST ${url}/logout -H 'X-Session-Id: <id>'
  curl -X POST ${url}/logout/all -H 'X-Session-Id: <id>'    # every session of the user
  curl '${url}/flaky?key=mine'   # 503 twice, then 200
  curl '${url}/slow?ms=2000'
  curl -F title='Q3 report' -F file=@README.md ${url}/files   # an upload, answered, not kept
`

/** Options from `--port/--store/--dir`, else `PORT/SESSION_STORE/SESSION_DIR` (and `REDIS_URL`). */
const optionsFromCommandLine = (): ServerOptions => {
  const { values } = parseArgs({
    options: {
      port: { type: "string" },
      store: { type: "string" },
      dir: { type: "string" }
    }
  })
  const port = Number(values.port ?? process.env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new RangeError(`--port must be an integer from 0 to 65535, got ${values.port}`)
  }
  const store = values.store ?? process.env.SESSION_STORE ?? "memory"
  switch (store) {
    case "memory":
      return { port, sessions: { store } }
    case "file":
      return {
        port,
        sessions: { store, dir: values.dir ?? process.env.SESSION_DIR ?? ".tmp/demo-sessions" }
      }
    case "redis":
      return { port, sessions: { store, url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" } }
    default:
      throw new TypeError(`--store must be "memory", "file" or "redis", got "${store}"`)
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const options = optionsFromCommandLine()
  Effect.gen(function* () {
    const url = yield* launch(options)
    yield* Console.log(curlExamples(url))
    const sessions = options.sessions
    if (sessions?.store === "file") yield* Console.log(`Sessions are kept in ${sessions.dir}`)
    if (sessions?.store === "redis") yield* Console.log("Sessions are kept in Redis")
    return yield* Effect.never
  }).pipe(Effect.scoped, NodeRuntime.runMain)
}
