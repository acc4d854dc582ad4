/**
 * A scriptable node:http server on 127.0.0.1 (port 0) that records every request.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly query: URLSearchParams
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

export interface Reply {
  readonly status?: number
  readonly headers?: Record<string, string>
  /** A string is sent as it is; anything else as JSON. */
  readonly body?: unknown
  /** Never answer (until the server closes). */
  readonly hang?: boolean
  /** Destroy the connection without answering. */
  readonly drop?: boolean
  /** Real milliseconds to wait before answering. */
  readonly delayMs?: number
}

export type Script = (request: RecordedRequest, index: number) => Reply | Promise<Reply>

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly requests: Array<RecordedRequest>
  /** Resolves once `count` requests have arrived. */
  readonly waitForRequests: (count: number) => Promise<void>
  /** Resolves once the client has closed `count` exchanges before their answer ended. */
  readonly waitForAbandoned: (count: number) => Promise<void>
  /** How many exchanges the client has closed before their answer ended, so far. */
  readonly abandoned: () => number
  script: Script
  readonly close: () => Promise<void>
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  body,
  headers: { "content-type": "application/json", ...headers }
})

const answer = (res: Http.ServerResponse, reply: Reply): void => {
  if (reply.drop) {
    res.socket?.destroy()
    return
  }
  if (reply.hang) return
  const send = () => {
    const body =
      reply.body === undefined
        ? ""
        : typeof reply.body === "string"
          ? reply.body
          : JSON.stringify(reply.body)
    const headers: Record<string, string> = { ...(reply.headers ?? {}) }
    if (typeof reply.body !== "string" && reply.body !== undefined && !headers["content-type"]) {
      headers["content-type"] = "application/json"
    }
    res.writeHead(reply.status ?? 200, headers)
    res.end(body)
  }
  if (reply.delayMs) setTimeout(send, reply.delayMs)
  else send()
}

export const startServer = (script: Script = () => json({ ok: true })): Promise<TestServer> =>
  new Promise((resolve) => {
    const requests: Array<RecordedRequest> = []
    const waiters: Array<{ count: number; resolve: () => void }> = []
    let abandoned = 0
    const abandonWaiters: Array<{ count: number; resolve: () => void }> = []
    const server = Http.createServer((req, res) => {
      res.on("close", () => {
        if (res.writableFinished) return
        abandoned++
        for (const waiter of abandonWaiters.filter((w) => w.count <= abandoned)) {
          abandonWaiters.splice(abandonWaiters.indexOf(waiter), 1)
          waiter.resolve()
        }
      })
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1")
        const recorded: RecordedRequest = {
          method: req.method ?? "",
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8")
        }
        const index = requests.length
        requests.push(recorded)
        for (const waiter of waiters.filter((w) => w.count <= requests.length)) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve()
        }
        Promise.resolve(test.script(recorded, index)).then(
          (reply) => answer(res, reply),
          () => answer(res, { status: 500 })
        )
      })
    })
    const test: TestServer = {
      origin: "",
      requests,
      script,
      waitForRequests: (count) =>
        requests.length >= count
          ? Promise.resolve()
          : new Promise((resolve) => waiters.push({ count, resolve })),
      abandoned: () => abandoned,
      waitForAbandoned: (count) =>
        abandoned >= count
          ? Promise.resolve()
          : new Promise((resolve) => abandonWaiters.push({ count, resolve })),
      close: () =>
        new Promise((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    }
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      ;(test as { origin: string }).origin = `http://127.0.0.1:${port}`
      resolve(test)
    })
  })

/** The server for the length of a scope. */
export const testServer = (script?: Script) =>
  Effect.acquireRelease(
    Effect.promise(() => startServer(script)),
    (server) => Effect.promise(() => server.close())
  )

/** A port on 127.0.0.1 where nothing listens. */
export const closedPort = async (): Promise<string> => {
  const server = await startServer()
  const origin = server.origin
  await server.close()
  return origin
}
