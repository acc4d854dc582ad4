/**
 * Against a server nobody here wrote: Debian's httpbin (`python3-httpbin`) under gunicorn on
 * 127.0.0.1, over every transport that runs on Node. Skipped, with a message, where it is not
 * installed (`.ci/run` installs it).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { foldError } from "../../src/common/client.js"
import {
  type ApiResponse,
  createSvc,
  SvcClient,
  type SvcConfig
} from "../../src/v3/Client/index.js"
import { freePort } from "../support/tarball.js"
import type { ClientUnderTest } from "./conformance/suite.js"
import { effectClient } from "./effectClient.js"

const GUNICORN = "/usr/bin/gunicorn"
const installed = existsSync(GUNICORN)
if (!installed) {
  console.warn("httpbin tests skipped: gunicorn and python3-httpbin are not installed")
}

const waitUntilUp = async (origin: string) => {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      if ((await fetch(`${origin}/get`)).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error("httpbin did not start")
}

let httpbin: ChildProcess | undefined
let origin = ""
/** A second origin, recording what reaches it. */
let other: Http.Server
let otherOrigin = ""
const reachedOther: Array<Http.IncomingHttpHeaders> = []

beforeAll(async () => {
  if (!installed) return
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  httpbin = spawn(GUNICORN, ["--bind", `127.0.0.1:${port}`, "--workers", "2", "httpbin:app"], {
    stdio: "ignore"
  })
  other = Http.createServer((request, response) => {
    reachedOther.push(request.headers)
    response.writeHead(200, { "content-type": "application/json" })
    response.end('{"other":true}')
  })
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve))
  otherOrigin = `http://127.0.0.1:${(other.address() as Net.AddressInfo).port}`
  await waitUntilUp(origin)
}, 30_000)

afterAll(async () => {
  httpbin?.kill()
  if (other) await new Promise<void>((resolve) => other.close(() => resolve()))
})

const transports: ReadonlyArray<
  readonly [string, (baseUrl: string, config: SvcConfig) => ClientUnderTest]
> = [
  ["undici", (baseUrl, config) => createSvc(baseUrl, config)],
  ["fetch", (baseUrl, config) => createSvc(baseUrl, { ...config, fetch: globalThis.fetch })],
  [
    "HttpClient adapter (NodeHttpClient)",
    effectClient((baseUrl, config) =>
      SvcClient.layer(baseUrl, config).pipe(Layer.provide(NodeHttpClient.layerUndici))
    )
  ]
]

describe.skipIf(!installed).each(transports)("httpbin over %s", (_name, make) => {
  const client = (config: SvcConfig = {}) => make(origin, { retryAttempts: 0, ...config })

  it("GET /get, with the default headers", async () => {
    const response = await client().get("/get", { params: { a: "1" } })
    expect(response).toMatchObject({ success: true, status: 200 })
    const data = response.data as { args: unknown; headers: Record<string, string> }
    expect(data.args).toEqual({ a: "1" })
    expect(data.headers.Accept).toBe("application/json, text/plain, */*")
    expect(data.headers["Accept-Encoding"]).toMatch(/gzip/)
  })

  it.each(["gzip", "deflate", "brotli"])("/%s is decompressed", async (coding) => {
    const response = await client().get(`/${coding}`)
    expect(response.success).toBe(true)
    expect(
      (response.data as Record<string, unknown>)[
        `${coding === "gzip" ? "gzipped" : coding === "deflate" ? "deflated" : "brotli"}`
      ]
    ).toBe(true)
  })

  it("binary: /bytes and /image/png arrive as bytes", async () => {
    const bytes = await client().get("/bytes/300")
    expect(bytes.data).toBeInstanceOf(Uint8Array)
    expect((bytes.data as Uint8Array).byteLength).toBe(300)
    const png = await client().get("/image/png")
    expect(Array.from((png.data as Uint8Array).slice(0, 8))).toEqual([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a
    ])
  })

  it("UTF-8 text", async () => {
    // httpbin decodes the path's base64 and answers it as text/html; charset=utf-8
    const encoded = Buffer.from("∮ E⋅da = Q, «café»")
      .toString("base64")
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
    const text = await client().get(`/base64/${encoded}`)
    expect(text.data).toBe("∮ E⋅da = Q, «café»")
  })

  it("response headers are exposed", async () => {
    const response = await client().get("/response-headers", {
      params: { ETag: '"abc"', "X-Total-Count": "5" }
    })
    expect(response.headers).toMatchObject({ etag: '"abc"', "x-total-count": "5" })
  })

  it("the server's reason phrase is in the error", async () => {
    expect(await client().get("/status/418")).toMatchObject({
      success: false,
      status: 418,
      code: "HTTP_ERROR",
      // the server's own phrase ("I'M A TEAPOT") where the transport reads it, the standard one
      // where it does not (an @effect/platform HttpClient gives no status text)
      error: expect.stringMatching(/^HTTP 418 I'm a teapot$/i)
    })
  })

  it("redirects: relative, absolute, and a POST across 307", async () => {
    expect((await client().get("/redirect/3")).status).toBe(200)
    expect((await client().get("/absolute-redirect/3")).status).toBe(200)
    const posted = await client().post(
      "/redirect-to",
      { a: 1 },
      { params: { url: "/anything", status_code: 307 } }
    )
    expect(posted.status).toBe(200)
    expect(posted.data).toMatchObject({ method: "POST", json: { a: 1 } })
    const seeOther = await client().post(
      "/redirect-to",
      { a: 1 },
      { params: { url: "/anything", status_code: 303 } }
    )
    expect(seeOther.data).toMatchObject({ method: "GET", data: "" })
  })

  it("more than 10 redirects fail", async () => {
    expect(await client().get("/redirect/11")).toMatchObject({
      success: false,
      code: "NETWORK_ERROR"
    })
  })

  it('redirect: "manual" shows the Location', async () => {
    const response = await client().get("/redirect/1", { redirect: "manual" })
    expect(response.status).toBe(302)
    expect(response.headers?.location).toBe("/get")
  })

  it("a redirect to another origin never carries the session", async () => {
    const response = await client({ sessionId: "secret-session" }).get("/redirect-to", {
      params: { url: `${otherOrigin}/x`, status_code: 302 },
      headers: { Authorization: "Bearer t" }
    })
    expect(response.data).toEqual({ other: true })
    const arrived = reachedOther[reachedOther.length - 1]!
    expect(arrived["x-session-id"]).toBeUndefined()
    expect(arrived.authorization).toBeUndefined()
  })

  it("maxResponseBytes", async () => {
    expect(await client({ maxResponseBytes: 100 }).get("/bytes/1000")).toMatchObject({
      success: false,
      code: "RESPONSE_TOO_LARGE"
    })
  })
})

/** Reads a `stream` call to its end: its bytes, or the failure folded as the facade folds it. */
type Streamer = (
  endpoint: string,
  config: SvcConfig
) => Promise<{ readonly bytes?: Uint8Array; readonly failure?: ApiResponse }>

const readAll = async (stream: ReadableStream<Uint8Array>): Promise<Uint8Array> => {
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    chunks.push(next.value)
  }
  return new Uint8Array(Buffer.concat(chunks))
}

const facadeStreamer =
  (extra: SvcConfig): Streamer =>
  async (endpoint, config) => {
    const response = await createSvc(origin, { ...extra, ...config }).stream(endpoint)
    return response.success ? { bytes: await readAll(response.data) } : { failure: response }
  }

const streamers: ReadonlyArray<readonly [string, Streamer]> = [
  ["undici", facadeStreamer({})],
  ["fetch", facadeStreamer({ fetch: globalThis.fetch })],
  [
    "the Effect API over the HttpClient adapter (NodeHttpClient)",
    (endpoint, config) =>
      Effect.runPromise(
        Effect.flatMap(SvcClient, (client) =>
          Effect.suspend(() => {
            const chunks: Array<Uint8Array> = []
            return Effect.map(
              Stream.runForEach(client.stream(endpoint), (chunk) =>
                Effect.sync(() => chunks.push(chunk))
              ),
              () => Buffer.concat(chunks)
            )
          })
        ).pipe(
          Effect.match({
            onFailure: (error) => ({ failure: foldError(error) }),
            onSuccess: (bytes) => ({ bytes: new Uint8Array(bytes) })
          }),
          Effect.provide(
            SvcClient.layer(origin, config).pipe(Layer.provide(NodeHttpClient.layerUndici))
          )
        )
      )
  ]
]

describe.skipIf(!installed).each(streamers)("httpbin, stream over %s", (_name, read) => {
  it("/stream-bytes/{n} arrives whole in chunks, past maxResponseBytes", async () => {
    const { bytes } = await read("/stream-bytes/50000?chunk_size=1000&seed=1", {
      maxResponseBytes: 1_000
    })
    expect(bytes?.byteLength).toBe(50_000)
  })

  it("/drip arrives byte by byte", async () => {
    const { bytes } = await read("/drip?duration=0.2&numbytes=5&delay=0", {})
    expect(new TextDecoder().decode(bytes)).toBe("*****")
  })

  it("/status/503 is a failure with no stream", async () => {
    const { failure } = await read("/status/503", { retryAttempts: 0 })
    expect(failure).toMatchObject({ success: false, status: 503, code: "HTTP_ERROR" })
  })
})
