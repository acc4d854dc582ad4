import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface Listening {
  readonly url: string
  readonly close: () => Promise<void>
}

const listen = (server: Server): Promise<Listening> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/**
 * Serves one HTML page loading every script of `scripts` (read at each request): at `/`, and at
 * `/sandboxed` in a CSP sandbox, where every storage access throws a `SecurityError`.
 */
export const startPageServer = (
  scripts: ReadonlyMap<string, string>,
  title: string
): Promise<Listening> =>
  listen(
    createServer((request, response) => {
      const path = new URL(request.url ?? "/", "http://page").pathname
      const script = scripts.get(path)
      if (path === "/" || path === "/sandboxed") {
        response.writeHead(200, {
          "content-type": "text/html; charset=utf-8",
          // An opaque origin: touching localStorage, sessionStorage or document.cookie throws.
          ...(path === "/sandboxed" ? { "content-security-policy": "sandbox allow-scripts" } : {})
        })
        response.end(page(title, [...scripts.keys()]))
      } else if (script !== undefined) {
        response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" })
        response.end(script)
      } else {
        response.writeHead(404).end()
      }
    })
  )

const page = (title: string, scripts: ReadonlyArray<string>) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; margin: 24px; }
  table { border-collapse: collapse; }
  td, th { border: 1px solid #bbb; padding: 4px 10px; text-align: left; }
  .pass { background: #dff5df; } .fail { background: #f8d7d7; }
</style>
</head>
<body>
<h1>${title}</h1>
<table><thead><tr><th>scenario</th><th>expected</th><th>outcome</th></tr></thead>
<tbody id="outcomes"></tbody></table>
${scripts.map((path) => `<script src="${path}"></script>`).join("\n")}
</body>
</html>`

/** What the API server saw of one request. */
export interface SeenRequest {
  readonly tag: string
  readonly sessionHeader: string | null
  readonly cookieHeader: string | null
}

/**
 * An API on its own port with CORS for `X-Session-Id`: `GET /whoami?tag=<t>` records the session
 * header it carried and answers `{ data: { session } }`. Preflights are answered, and the
 * headers they asked for recorded apart.
 */
export interface ApiServer extends Listening {
  readonly seen: Array<SeenRequest>
  /** The `Access-Control-Request-Headers` of each preflight. */
  readonly preflights: Array<string>
}

export const startApiServer = async (): Promise<ApiServer> => {
  const seen: Array<SeenRequest> = []
  const preflights: Array<string> = []
  const cors = (request: IncomingMessage, response: ServerResponse) => {
    response.setHeader("access-control-allow-origin", request.headers.origin ?? "*")
    response.setHeader("access-control-allow-headers", "X-Session-Id, Content-Type")
    response.setHeader("access-control-allow-methods", "GET, POST, PUT, PATCH, DELETE")
    response.setHeader("vary", "Origin")
  }
  const listening = await listen(
    createServer((request, response) => {
      cors(request, response)
      if (request.method === "OPTIONS") {
        preflights.push(String(request.headers["access-control-request-headers"] ?? ""))
        response.writeHead(204).end()
        return
      }
      const url = new URL(request.url ?? "/", "http://api")
      if (url.pathname === "/redirect") {
        response.writeHead(302, { location: "/lazy" }).end()
        return
      }
      if (url.pathname === "/noreason") {
        // a status line without a reason phrase, as HTTP/2 has none: fetch's statusText is ""
        response.writeHead(404, "").end()
        return
      }
      const sessionHeader = request.headers["x-session-id"]
      const entry: SeenRequest = {
        tag: url.searchParams.get("tag") ?? "",
        sessionHeader: typeof sessionHeader === "string" ? sessionHeader : null,
        cookieHeader: request.headers.cookie ?? null
      }
      seen.push(entry)
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({ data: { session: entry.sessionHeader } }))
    })
  )
  return { ...listening, seen, preflights }
}
