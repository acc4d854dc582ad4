/**
 * The demo server's options and what it prints when it starts, the same on both Effect lines
 * (`server.ts` on Effect 4, `v3/server.ts` on Effect 3).
 */
import { parseArgs } from "node:util"
import { DEMO_PASSWORDS } from "./users.js"

/** Where sessions live. */
export type SessionsOption =
  | { readonly store: "memory" }
  | { readonly store: "file"; readonly dir: string }
  | { readonly store: "redis"; readonly url: string }

/** How long the demo's sessions live, on every store. */
export const SESSION_LIFETIMES = { ttl: "8 hours", idleTimeout: "1 hour" } as const

export interface ServerOptions {
  /** `0` picks a free port (what tests do). @default 0 */
  readonly port?: number
  /** @default "127.0.0.1" */
  readonly host?: string
  /** Where sessions live. @default { store: "memory" } */
  readonly sessions?: SessionsOption | undefined
}

/** Options from `--port/--store/--dir`, else `PORT/SESSION_STORE/SESSION_DIR` (and `REDIS_URL`). */
export const optionsFromCommandLine = (): ServerOptions => {
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

/** What `npm run demo:server` prints once it listens on `url`: users and curl commands to try. */
export const banner = (url: string, options: ServerOptions): string => {
  const sessions = options.sessions
  const where =
    sessions?.store === "file"
      ? `\nSessions are kept in ${sessions.dir}`
      : sessions?.store === "redis"
        ? "\nSessions are kept in Redis"
        : ""
  return `svc-sdk demo server on ${url}  (Ctrl-C stops it)

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
  curl ${url}/sessions -H 'X-Session-Id: <id>'              # the user's devices (handles)
  curl -X DELETE ${url}/sessions/<handle> -H 'X-Session-Id: <id>'
  curl -X POST ${url}/sessions/others -H 'X-Session-Id: <id>'  # every device but this one
  curl -X POST ${url}/refresh -H 'Content-Type: application/json' \\
       -d '{"refresh_token":"<refresh_token from the login>"}'   # a new id, the next token
  curl -X POST ${url}/demo/expire -H 'X-Session-Id: <id>'   # demo only: the id ends, the device stays
  curl '${url}/flaky?key=mine'   # 503 twice, then 200
  curl '${url}/slow?ms=2000'
  curl -F title='Q3 report' -F file=@README.md ${url}/files   # an upload, answered, not kept
  curl -N '${url}/events?count=5&drop=2' -H 'X-Session-Id: <id>'  # a live feed, cut after event 2
  curl -N '${url}/events?count=5' -H 'X-Session-Id: <id>' -H 'Last-Event-ID: 2'  # resumed
  curl -N -X POST ${url}/chat -H 'X-Session-Id: <id>' -H 'Content-Type: application/json' \\
       -d '{"prompt":"A haiku about HTTP"}'                 # an answer, token by token
  curl -o demo.bin '${url}/download?bytes=1000000'          # bytes with a Content-Length
${where}`
}
