/**
 * The server of the transport conformance suite (node:http on 127.0.0.1, port 0): redirects of
 * every kind, compressed, binary and non-UTF-8 bodies, response headers, large and hanging bodies.
 * Every request is recorded.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as zlib from "node:zlib"

export interface Seen {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

export interface ConformanceServer {
  readonly origin: string
  readonly seen: Array<Seen>
  /** Where `/away` redirects to. */
  elsewhere: string
  /** Extra documents served as they are (a test page and its script), by path. */
  readonly pages: Map<string, { readonly type: string; readonly body: string }>
  readonly close: () => Promise<void>
}

const BYTES = Uint8Array.from({ length: 256 }, (_, i) => i)
export const binaryBytes = BYTES

const json = (res: Http.ServerResponse, status: number, body: unknown, extra = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...extra })
  res.end(JSON.stringify(body))
}

/** The coding this client accepts, best first: br, gzip, deflate, none. */
const negotiate = (accept: string | undefined, wanted: string): string | undefined => {
  const accepted = (accept ?? "").split(",").map((coding) => coding.trim().split(";")[0])
  return accepted.includes(wanted) ? wanted : undefined
}

const compress = (coding: string, bytes: Buffer): Buffer =>
  coding === "gzip"
    ? zlib.gzipSync(bytes)
    : coding === "deflate"
      ? zlib.deflateSync(bytes)
      : zlib.brotliCompressSync(bytes)

export const startConformanceServer = async (): Promise<ConformanceServer> => {
  const seen: Array<Seen> = []
  let self: ConformanceServer
  const server = Http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost")
      const body = Buffer.concat(chunks).toString("utf8")
      seen.push({ method: req.method ?? "", path: url.pathname, headers: req.headers, body })
      const route = url.pathname
      const page = self.pages.get(route)
      if (page !== undefined) {
        res.writeHead(200, { "content-type": page.type })
        return res.end(page.body)
      }
      const redirect = /^\/redirect\/(\d{3})$/.exec(route)
      if (redirect) {
        res.writeHead(Number(redirect[1]), { location: "/echo" })
        return res.end()
      }
      const slowHops = /^\/slow-hops\/(\d+)$/.exec(route)
      if (slowHops) {
        // each hop answers after `delay` ms
        const left = Number(slowHops[1])
        const delay = Number(url.searchParams.get("delay") ?? "0")
        setTimeout(() => {
          res.writeHead(302, {
            location: left <= 1 ? "/echo" : `/slow-hops/${left - 1}?delay=${delay}`
          })
          res.end()
        }, delay)
        return
      }
      const flaky = /^\/flaky\/[\w-]+$/.exec(route)
      if (flaky) {
        // 503 the first time a path is asked for, then its echo
        const asked = seen.filter((s) => s.path === route).length
        if (asked === 1) {
          res.writeHead(503, { "retry-after": "0" })
          return res.end()
        }
        return json(res, 200, { method: req.method, body, headers: req.headers })
      }
      const hops = /^\/hops\/(\d+)$/.exec(route)
      if (hops) {
        const left = Number(hops[1])
        res.writeHead(302, { location: left <= 1 ? "/echo" : `/hops/${left - 1}` })
        return res.end()
      }
      switch (route) {
        case "/echo":
          return json(res, 200, { method: req.method, body, headers: req.headers })
        case "/away":
          res.writeHead(302, { location: `${self.elsewhere}/echo` })
          return res.end()
        case "/relative-away":
          res.writeHead(307, { location: `//${new URL(self.elsewhere).host}/echo` })
          return res.end()
        case "/endless-redirect":
          // a redirect whose body never ends
          res.writeHead(302, { location: "/echo", "content-type": "text/plain" })
          res.write("moving…")
          return
        case "/large-redirect":
          // a redirect with a 2 MiB body
          res.writeHead(302, { location: "/echo", "content-type": "text/plain" })
          return res.end("x".repeat(2 * 1024 * 1024))
        case "/to-ftp":
          res.writeHead(302, { location: "ftp://127.0.0.1/file" })
          return res.end()
        case "/to-user-info":
          res.writeHead(302, { location: `http://user:pw@${new URL(self.elsewhere).host}/echo` })
          return res.end()
        case "/compressed": {
          const wanted = url.searchParams.get("coding") ?? "gzip"
          const coding = negotiate(req.headers["accept-encoding"], wanted)
          const plain = Buffer.from(JSON.stringify({ compressed: true, text: "é".repeat(100) }))
          res.writeHead(200, {
            "content-type": "application/json",
            ...(coding === undefined ? {} : { "content-encoding": coding })
          })
          return res.end(coding === undefined ? plain : compress(coding, plain))
        }
        case "/bomb": {
          // 1 MiB of zeros, gzipped to about 1 kB
          res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
          return res.end(zlib.gzipSync(Buffer.alloc(1024 * 1024)))
        }
        case "/bytes":
          res.writeHead(200, { "content-type": "application/octet-stream" })
          return res.end(Buffer.from(BYTES))
        case "/latin1":
          res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" })
          return res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9])) // "café"
        case "/typed":
          res.writeHead(200, { "content-type": url.searchParams.get("type") ?? "" })
          return res.end(url.searchParams.get("body") ?? "")
        case "/headers":
          return json(res, 200, [1, 2], { etag: '"v1"', "x-total-count": "42" })
        case "/missing":
          return json(res, 404, { error: "No such thing" }, { "x-request-id": "r-1" })
        case "/teapot":
          // a status line without a reason phrase ("HTTP/1.1 418 ")
          res.writeHead(418, "")
          return res.end()
        case "/large": {
          const size = Number(url.searchParams.get("n") ?? "0")
          res.writeHead(200, { "content-type": "text/plain" })
          return res.end("x".repeat(size))
        }
        case "/hang":
          return
        default:
          return json(res, 404, { error: "Not found" })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  self = {
    origin,
    seen,
    elsewhere: origin,
    pages: new Map(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return self
}
