/**
 * `stream` and `sse` (SPEC 4.8) against a real node:http server on 127.0.0.1, on both faces and
 * every Node transport (undici, fetch, the HttpClient adapter over FetchHttpClient and
 * NodeHttpClient), shared by both Effect lines: bodies read as they arrive, decompressed and not
 * bounded by maxResponseBytes; failures before and in the middle of a body; server-sent events
 * that drop, stall, send heartbeats, `retry:`, 204 and the wrong media type, resumed with
 * Last-Event-ID. Reconnection delays and idle timeouts run on TestClock where the Effect API
 * serves.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import * as Zlib from "node:zlib"
import { it as effectIt } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { foldError } from "../../src/common/client.js"
import {
  type ApiResponse,
  createSvc,
  DecodeError,
  type EventStream,
  type SseEvent,
  SvcClient,
  type SvcClientService,
  type SvcConfig,
  type SvcError
} from "../../src/v3/Client/index.js"
import {
  FetchHttpClient,
  fork,
  LINE,
  NodeHttpClient,
  TestClock,
  withMaxOpsBeforeYield
} from "../Auth/lineKit.js"

type Handler = (request: Http.IncomingMessage, response: Http.ServerResponse, index: number) => void

interface Seen {
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
}

let server: Http.Server
let origin = ""
let handler: Handler = (_, response) => response.end()
const seen: Array<Seen> = []
/** The paths of the exchanges the client closed before the server ended them. */
const abandoned: Array<string> = []
/** How many exchanges of `path` the client closed before the server ended them. */
const closedEarly = (path: string) => abandoned.filter((p) => p.split("?")[0] === path).length
const sockets = new Set<import("node:net").Socket>()

beforeAll(async () => {
  server = Http.createServer((request, response) => {
    seen.push({ path: request.url ?? "", headers: request.headers })
    response.on("close", () => {
      if (!response.writableEnded) abandoned.push(request.url ?? "")
    })
    handler(request, response, seen.length - 1)
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise((resolve) => server.close(resolve))
})

beforeEach(() => {
  seen.length = 0
  abandoned.length = 0
})

const until = async (condition: () => boolean, what: string) => {
  for (let i = 0; i < 500; i++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`timed out waiting for ${what}`)
}

const sseHead = (response: Http.ServerResponse, status = 200) =>
  response.writeHead(status, { "content-type": "text/event-stream; charset=utf-8" })

/** What a test reads of a `stream` call, on either face. */
interface StreamRead {
  readonly response: ApiResponse<unknown>
  readonly bytes?: Uint8Array
  readonly error?: Error
}

/** What a test reads of an `sse` call, on either face. */
interface SseRead {
  readonly events: Array<SseEvent<unknown>>
  /** How it ended: the facade's `closed`, or the Effect API's failure folded. */
  readonly outcome: ApiResponse<unknown>
}

interface Face {
  readonly name: string
  readonly stream: (endpoint: string, options?: object, config?: SvcConfig) => Promise<StreamRead>
  /** Reads `count` events (then closes), or until the stream ends. */
  readonly sse: (
    endpoint: string,
    options?: object,
    config?: SvcConfig,
    count?: number
  ) => Promise<SseRead>
}

const concat = (chunks: Array<Uint8Array>) => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0))
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}

const facade = (name: string, extra: SvcConfig): Face => ({
  name,
  stream: async (endpoint, options, config) => {
    const response = await createSvc(origin, { retryAttempts: 0, ...extra, ...config }).stream(
      endpoint,
      options
    )
    if (!response.success) return { response }
    const chunks: Array<Uint8Array> = []
    try {
      const reader = response.data.getReader()
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        chunks.push(next.value)
      }
      return { response, bytes: concat(chunks) }
    } catch (error) {
      return { response, bytes: concat(chunks), error: error as Error }
    }
  },
  sse: async (endpoint, options, config, count = Number.POSITIVE_INFINITY) => {
    const response = await createSvc(origin, { retryAttempts: 0, ...extra, ...config }).sse(
      endpoint,
      options
    )
    if (!response.success) return { events: [], outcome: response }
    const events: Array<SseEvent<unknown>> = []
    for await (const event of response.data) {
      events.push(event)
      if (events.length >= count) response.data.close()
    }
    return { events, outcome: await response.data.closed }
  }
})

const effectFace = (name: string, layerOf: (config: SvcConfig) => Layer.Layer<SvcClient>): Face => {
  const run = <A>(config: SvcConfig, f: (client: SvcClientService) => Effect.Effect<A, SvcError>) =>
    Effect.runPromise(
      Effect.flatMap(SvcClient, f).pipe(
        Effect.match({
          onFailure: (left) => ({ _tag: "Left" as const, left }),
          onSuccess: (right) => ({ _tag: "Right" as const, right })
        }),
        Effect.provide(layerOf({ retryAttempts: 0, ...config }))
      )
    )
  return {
    name,
    stream: async (endpoint, options, config = {}) => {
      const chunks: Array<Uint8Array> = []
      const result = await run(config, (client) =>
        Stream.runForEach(client.stream(endpoint, options), (chunk) =>
          Effect.sync(() => chunks.push(chunk))
        )
      )
      if (result._tag === "Right") {
        return { response: { success: true, status: 200, data: undefined }, bytes: concat(chunks) }
      }
      const error = result.left
      // a failure after bytes came is one in the middle of the body
      return chunks.length > 0 || error._tag === "TimeoutError"
        ? {
            response: { success: true, status: 200, data: undefined },
            bytes: concat(chunks),
            error
          }
        : { response: foldError(error) }
    },
    sse: async (endpoint, options, config = {}, count = Number.POSITIVE_INFINITY) => {
      const events: Array<SseEvent<unknown>> = []
      const stream = client_sse(endpoint, options)
      const result = await run(config, (client) =>
        Stream.runForEach(
          Number.isFinite(count) ? Stream.take(stream(client), count) : stream(client),
          (event) => Effect.sync(() => events.push(event))
        )
      )
      return {
        events,
        outcome:
          result._tag === "Right"
            ? { success: true, status: 200, data: undefined }
            : foldError(result.left)
      }
    }
  }
}

const client_sse = (endpoint: string, options: object | undefined) => (client: SvcClientService) =>
  client.sse(endpoint, options)

const faces: ReadonlyArray<Face> = [
  facade("facade over undici", {}),
  facade("facade over fetch", { fetch: (input, init) => globalThis.fetch(input, init) }),
  effectFace("Effect API (layerDefault)", (config) => SvcClient.layerDefault(origin, config)),
  effectFace("Effect API over SvcClient.layer(FetchHttpClient)", (config) =>
    SvcClient.layer(origin, config).pipe(Layer.provide(FetchHttpClient.layer))
  ),
  effectFace("Effect API over SvcClient.layer(NodeHttpClient.layerUndici)", (config) =>
    SvcClient.layer(origin, config).pipe(Layer.provide(NodeHttpClient.layerUndici))
  )
]

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes)

describe.each(faces)("stream, $name", (face) => {
  it("reads a body in chunks as they come, the whole pipeline before it (session, headers)", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      let i = 0
      const next = () => {
        if (i === 5) return response.end()
        response.write(`chunk ${i++};`)
        setTimeout(next, 5)
      }
      next()
    }
    const read = await face.stream(
      "/bytes",
      { headers: { "x-trace": "1" }, params: { n: 5 } },
      { sessionId: "s3cr3t-session" }
    )
    expect(read.error).toBeUndefined()
    expect(text(read.bytes)).toBe("chunk 0;chunk 1;chunk 2;chunk 3;chunk 4;")
    expect(seen[0]?.path).toBe("/bytes?n=5")
    expect(seen[0]?.headers["x-session-id"]).toBe("s3cr3t-session")
    expect(seen[0]?.headers["x-trace"]).toBe("1")
  })

  it("is not bounded by maxResponseBytes on a 2xx, and decompresses gzip as it reads", async () => {
    const body = "x".repeat(200_000)
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
      const gzip = Zlib.createGzip()
      gzip.pipe(response)
      gzip.end(body)
    }
    const read = await face.stream("/big", {}, { maxResponseBytes: 1_000 })
    expect(read.error).toBeUndefined()
    expect(read.bytes?.byteLength).toBe(body.length)
    expect(text(read.bytes)).toBe(body)
  })

  // a body its client decoded already cannot be told from one labelled gzip that is not: an
  // HttpClient's body that does not start as gzip goes as it is (httpClientTransport.ts)
  const sniffs = face.name.includes("SvcClient.layer(")
  it.each(
    [
      ["text labelled gzip", "gzip", () => Buffer.from("plain text, not gzip")] as const,
      [
        "gzip followed by bytes that are not",
        "gzip",
        () => Buffer.concat([Zlib.gzipSync("hello"), Buffer.from("garbage")])
      ] as const,
      ["gzip labelled gzip twice", "gzip, gzip", () => Zlib.gzipSync("hello")] as const,
      ["text labelled br", "br", () => Buffer.from("plain text, not brotli")] as const
    ].filter(([name]) => !sniffs || name !== "text labelled gzip")
  )(
    "a body its Content-Encoding does not undo (%s) errors the stream at once, naming the request",
    async (_, encoding, body) => {
      handler = (_, response) => {
        response.writeHead(200, { "content-type": "text/plain", "content-encoding": encoding })
        response.end(body())
      }
      const read = await face.stream("/coded")
      const failure = read.error ?? (read.response.success ? undefined : read.response)
      expect(failure).toMatchObject({ code: "NETWORK_ERROR" })
      const message =
        failure instanceof Error ? failure.message : (failure as { error: string }).error
      expect(message).toMatch(
        /^Network error: the response body failed \(.+\): GET http:\/\/127\.0\.0\.1:\d+\/coded$/
      )
    }
  )

  it('a deflate body whose text starts as a zlib header might ("hello") is read as the text', async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-encoding": "deflate" })
      response.end(Zlib.deflateSync("hello, world"))
    }
    const read = await face.stream("/deflated")
    expect(read.error).toBeUndefined()
    expect(text(read.bytes)).toBe("hello, world")
  })

  // (fetch decodes a body itself: Node 24's fetch waits for the connection to end after the coded
  // bytes, which is fetch's to decide)
  if (!face.name.includes("etch"))
    it("a coded body that ends before its connection does is read to its end, and the connection closed", async () => {
      handler = (_, response) => {
        response.writeHead(200, { "content-type": "text/plain", "content-encoding": "deflate" })
        // the coded bytes end; the connection stays open, with bytes after them
        response.write(Buffer.concat([Zlib.deflateSync("hello"), Buffer.from("after")]))
      }
      const read = await face.stream("/coded")
      expect(read.error).toBeUndefined()
      expect(text(read.bytes)).toBe("hello")
      await until(() => closedEarly("/coded") === 1, "the connection to close")
    })

  it("POSTs a JSON body with the method given", async () => {
    let received = ""
    handler = (request, response) => {
      request.setEncoding("utf8")
      request.on("data", (chunk: string) => {
        received += chunk
      })
      request.on("end", () => response.end(`${request.method} done`))
    }
    const read = await face.stream("/chat", { method: "POST", body: { prompt: "hi" } })
    expect(text(read.bytes)).toBe("POST done")
    expect(received).toBe('{"prompt":"hi"}')
    expect(seen[0]?.headers["content-type"]).toBe("application/json")
  })

  it("a non-2xx is read and answered as any failure, with no stream", async () => {
    handler = (_, response) => {
      response.writeHead(404, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: "no such feed" }))
    }
    const read = await face.stream("/missing")
    expect(read.response).toMatchObject({
      success: false,
      status: 404,
      code: "HTTP_ERROR",
      error: "no such feed"
    })
    expect(read.bytes).toBeUndefined()
  })

  it("a connection dropped in the middle of the body errors the stream, naming method and URL, never the session", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      response.write("first part;")
      setTimeout(() => response.socket?.destroy(), 20)
    }
    const errors: Array<Error> = []
    const read = await face.stream(
      "/drop?token=hidden",
      {},
      { sessionId: "s3cr3t-session", onError: (error) => errors.push(error) }
    )
    expect(text(read.bytes)).toBe("first part;")
    expect(read.error).toBeInstanceOf(Error)
    expect(read.error?.message).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/drop$/)
    expect(read.error?.message).not.toMatch(/s3cr3t|hidden/)
    expect(errors.map((e) => e.message)).toContain(read.error?.message)
  })

  it("idleTimeout errors a silent body with code TIMEOUT and closes the connection", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      response.write("then silence")
    }
    const read = await face.stream("/stall", { idleTimeout: 100 })
    expect(text(read.bytes)).toBe("then silence")
    expect((read.error as Error & { code?: string }).code).toBe("TIMEOUT")
    expect(read.error?.message).toMatch(/idleTimeout.*GET http:\/\/127\.0\.0\.1:\d+\/stall/)
    await until(() => closedEarly("/stall") === 1, "the connection to close")
  })
})

describe.each(faces)("sse, $name", (face) => {
  it("yields each event (event name, data lines, id, retry) and sends Accept: text/event-stream", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.write(": hello\n\ndata: one\n\nevent: delta\ndata: two\ndata: lines\nid: 7\n\n")
      setTimeout(() => response.end("retry: 5000\ndata: three\n\n"), 10)
    }
    const read = await face.sse("/events", { reconnect: false })
    expect(read.events).toEqual([
      { event: "message", data: "one", id: "" },
      { event: "delta", data: "two\nlines", id: "7" },
      { event: "message", data: "three", id: "7", retry: 5000 }
    ])
    expect(read.outcome).toMatchObject({ success: true })
    expect(seen[0]?.headers.accept).toBe("text/event-stream")
    expect(seen[0]?.headers["last-event-id"]).toBeUndefined()
  })

  it("reconnects after a dropped connection, after the server's retry:, sending Last-Event-ID and the session as it is now", async () => {
    handler = (_, response, index) => {
      sseHead(response)
      if (index === 0) {
        response.write("retry: 20\nid: a1\ndata: first\n\ndata: cut")
        setTimeout(() => response.socket?.destroy(), 10)
      } else {
        response.end("id: a2\ndata: second\n\n")
      }
    }
    const read = await face.sse("/events", {}, { sessionId: "first-session" }, 2)
    expect(read.events.map((event) => [event.data, event.id])).toEqual([
      ["first", "a1"],
      ["second", "a2"]
    ])
    expect(seen).toHaveLength(2)
    expect(seen[1]?.headers["last-event-id"]).toBe("a1")
    expect(seen[1]?.headers["x-session-id"]).toBe("first-session")
    expect(read.outcome).toMatchObject({ success: true })
  })

  it("lastEventId is sent on the first request; a server that ends the body is reconnected to", async () => {
    handler = (request, response) => {
      sseHead(response)
      response.end(`data: since ${request.headers["last-event-id"]}\n\n`)
    }
    const read = await face.sse(
      "/events",
      { lastEventId: "41", reconnect: { delay: 10 } },
      undefined,
      2
    )
    expect(read.events.map((event) => event.data)).toEqual(["since 41", "since 41"])
    expect(seen.map((s) => s.headers["last-event-id"])).toEqual(["41", "41"])
  })

  it("a 204 ends the stream normally, on the first request or a reconnect", async () => {
    handler = (_, response, index) => {
      if (index === 0) {
        sseHead(response)
        return response.end("data: only\n\n")
      }
      response.writeHead(204)
      response.end()
    }
    const read = await face.sse("/events", { reconnect: { delay: 10 } })
    expect(read.events.map((event) => event.data)).toEqual(["only"])
    expect(read.outcome).toMatchObject({ success: true })
    expect(seen).toHaveLength(2)
  })

  it("a 2xx that is not text/event-stream is DECODE_ERROR naming its media type", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      response.end("{}")
    }
    const read = await face.sse("/events")
    expect(read.outcome).toMatchObject({ success: false, code: "DECODE_ERROR", status: 200 })
    expect((read.outcome as { error: string }).error).toMatch(
      /^Response could not be decoded: the response is not text\/event-stream: its Content-Type is "application\/json"$/
    )
  })

  it("a reconnect answered with a non-2xx ends the stream with that failure (401 included)", async () => {
    handler = (_, response, index) => {
      if (index === 0) {
        sseHead(response)
        return response.end("data: before\n\n")
      }
      response.writeHead(401, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: "session expired" }))
    }
    const errors: Array<Error> = []
    const read = await face.sse(
      "/events",
      { reconnect: { delay: 10 } },
      {
        onError: (error) => errors.push(error)
      }
    )
    expect(read.events.map((event) => event.data)).toEqual(["before"])
    expect(read.outcome).toMatchObject({ success: false, status: 401, code: "HTTP_ERROR" })
    expect(errors.map((e) => e.message)).toContain("session expired")
  })

  it("reconnect.attempts bounds failed reconnects in a row; a successful connection resets the count", async () => {
    // 0 opens, 1 fails, 2 opens (reset), 3 and 4 fail: with attempts 2 the stream ends there
    handler = (_, response, index) => {
      if (index === 1 || index >= 3) return response.socket?.destroy()
      sseHead(response)
      response.end(`data: open ${index}\n\n`)
    }
    const read = await face.sse("/events", { reconnect: { delay: 5, attempts: 2 } })
    expect(read.events.map((event) => event.data)).toEqual(["open 0", "open 2"])
    expect(read.outcome).toMatchObject({ success: false, code: "NETWORK_ERROR" })
    expect(seen).toHaveLength(5)
  })

  it("a reconnect answered with a non-2xx whose body stalls ends the stream: the server answered, nothing dropped", async () => {
    handler = (_, response, index) => {
      if (index === 0) {
        sseHead(response)
        response.end("data: one\n\n")
        return
      }
      response.writeHead(503, { "content-type": "text/plain" })
      response.write("the body of a failure, cut short")
    }
    const read = await face.sse(
      "/events",
      { reconnect: { delay: 5, attempts: 5 } },
      { timeout: 300 }
    )
    expect(read.events.map((event) => event.data)).toEqual(["one"])
    expect(read.outcome).toMatchObject({ success: false, code: "TIMEOUT" })
    // one reconnect: not five more, as for a connection that dropped
    expect(seen).toHaveLength(2)
  })

  it("reconnect.attempts 0 allows no failed reconnect: none is tried, as retryAttempts: 0 retries nothing", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end("data: once\n\n")
    }
    const read = await face.sse("/events", { reconnect: { delay: 5, attempts: 0 } })
    expect(read.events.map((event) => event.data)).toEqual(["once"])
    expect(read.outcome).toMatchObject({ success: true })
    expect(seen).toHaveLength(1)
  })

  it("schema decodes each event's JSON data; a mismatch ends the stream with DECODE_ERROR, the events after it neither decoded nor given", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end(
        'data: {"token":"Hi"}\n\ndata: {"token":"there"}\n\ndata: {"token":42}\n\ndata: {"token":"after"}\n\n'
      )
    }
    const validated: Array<unknown> = []
    const schema = {
      "~standard": {
        version: 1,
        vendor: "test",
        validate: (value: unknown) => {
          validated.push(value)
          return typeof (value as { token?: unknown }).token === "string"
            ? { value }
            : { issues: [{ message: "token must be a string", path: ["token"] }] }
        }
      }
    }
    const read = await face.sse("/events", { schema, reconnect: false })
    expect(read.events.map((event) => event.data)).toEqual([{ token: "Hi" }, { token: "there" }])
    expect(validated).toEqual([{ token: "Hi" }, { token: "there" }, { token: 42 }])
    expect(read.outcome).toMatchObject({ success: false, code: "DECODE_ERROR" })
    expect((read.outcome as { error: string }).error).toMatch(
      /^Response data does not match the schema: .*token must be a string/
    )
  })

  it("with a schema, an event whose data is not JSON ends the stream with DECODE_ERROR saying so", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end('data: {"token":"Hi"}\n\ndata: [DONE]\n\n')
    }
    const schema = {
      "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) }
    }
    const read = await face.sse("/events", { schema, reconnect: false })
    expect(read.events.map((event) => event.data)).toEqual([{ token: "Hi" }])
    expect(read.outcome).toMatchObject({ success: false, code: "DECODE_ERROR", status: 200 })
    expect((read.outcome as { error: string }).error).toMatch(
      /^Response could not be decoded: the event's data is not JSON: /
    )
  })

  it("with an effect/Schema whose decoding dies, the stream ends with DECODE_ERROR after the events before it", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end('data: "Hi"\n\ndata: "boom"\n\ndata: "after"\n\n')
    }
    // a guard that throws is a defect of the schema's run, not a verdict (the same on both lines)
    const schema = Schema.declare((value: unknown): value is string => {
      if (value === "boom") throw new Error("the guard threw")
      return typeof value === "string"
    })
    const read = await face.sse("/events", { schema, reconnect: false })
    expect(read.events.map((event) => event.data)).toEqual(["Hi"])
    expect(read.outcome).toEqual({
      success: false,
      status: 200,
      code: "DECODE_ERROR",
      error: "Response could not be decoded: the event could not be decoded"
    })
  })

  it.each([
    ["data lines without the blank line that ends their event", `data: ${"x".repeat(1000)}\n`],
    ["a line without its end", "x".repeat(1000)]
  ])(
    "an event past maxResponseBytes (%s) ends the stream with RESPONSE_TOO_LARGE after the events before it, closes its connection, and is not reconnected",
    async (_, piece) => {
      handler = (_, response) => {
        sseHead(response)
        response.write("data: before\n\n")
        // up to 64 MiB, more than loopback buffers hold, as the socket takes it: a client that
        // stops reading closes the exchange before it ends
        let sent = 0
        const more = () => {
          while (!response.destroyed && sent < 64 * 1024 * 1024) {
            sent += piece.length
            if (!response.write(piece)) return void response.once("drain", more)
          }
          if (!response.destroyed) response.end()
        }
        more()
      }
      const read = await face.sse(
        "/events",
        { reconnect: { delay: 10 } },
        { maxResponseBytes: 65_536 }
      )
      expect(read.events.map((event) => event.data)).toEqual(["before"])
      expect(read.outcome).toEqual({
        success: false,
        status: 200,
        code: "RESPONSE_TOO_LARGE",
        error: "Response body larger than 65536 bytes (maxResponseBytes)"
      })
      await until(() => closedEarly("/events") === 1, "the exchange to close")
      expect(seen).toHaveLength(1)
    }
  )

  it.each([
    ["that came in one write", "x".repeat(5_000)],
    ["of 1,200 bytes in 400 characters", "\u65e5".repeat(400)]
  ])(
    "an event past maxResponseBytes %s ends the stream with RESPONSE_TOO_LARGE, the events after it unread",
    async (_, data) => {
      handler = (_, response) => {
        sseHead(response)
        response.end(`data: before\n\ndata: ${data}\n\ndata: after\n\n`)
      }
      const read = await face.sse("/events", { reconnect: false }, { maxResponseBytes: 1_000 })
      expect(read.events.map((event) => event.data)).toEqual(["before"])
      expect(read.outcome).toMatchObject({
        success: false,
        status: 200,
        code: "RESPONSE_TOO_LARGE"
      })
    }
  )

  it("an event of 999 bytes in 333 characters is within maxResponseBytes 1,000", async () => {
    const data = "\u65e5".repeat(333)
    handler = (_, response) => {
      sseHead(response)
      response.end(`data: ${data}\n\n`)
    }
    const read = await face.sse("/events", { reconnect: false }, { maxResponseBytes: 1_000 })
    expect(read.events.map((event) => event.data)).toEqual([data])
    expect(read.outcome).toMatchObject({ success: true })
  })

  it("an event just within maxResponseBytes is read whole", async () => {
    const data = "x".repeat(60_000)
    handler = (_, response) => {
      sseHead(response)
      for (let at = 0; at < data.length; at += 1000) {
        response.write(at === 0 ? `data: ${data.slice(0, 1000)}` : data.slice(at, at + 1000))
      }
      response.end("\n\ndata: after\n\n")
    }
    const read = await face.sse("/events", { reconnect: false }, { maxResponseBytes: 65_536 })
    expect(read.events.map((event) => event.data)).toEqual([data, "after"])
    expect(read.outcome).toMatchObject({ success: true })
  })

  it("an event id beyond ASCII goes back in Last-Event-ID as its UTF-8 bytes, as EventSource sends it", async () => {
    const id = "caf\u00e9-\u65e5\u672c-\u{1F600}"
    handler = (_, response, index) => {
      sseHead(response)
      response.end(index === 0 ? `id: ${id}\ndata: first\n\n` : "data: second\n\n")
    }
    const read = await face.sse("/events", { reconnect: { delay: 10 } }, undefined, 2)
    expect(read.events).toEqual([
      { event: "message", data: "first", id },
      { event: "message", data: "second", id }
    ])
    // Node reads a header's bytes as latin1: the server decodes them as UTF-8
    const sent = seen[1]?.headers["last-event-id"] as string
    expect(Buffer.from(sent, "latin1").toString("utf8")).toBe(id)
  })

  it("a lastEventId option beyond ASCII goes as its UTF-8 bytes on the first request", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end("data: only\n\n")
    }
    const read = await face.sse("/events", { lastEventId: "\u00e9t\u00e9", reconnect: false })
    expect(read.events.map((event) => event.id)).toEqual(["\u00e9t\u00e9"])
    const sent = seen[0]?.headers["last-event-id"] as string
    expect(Buffer.from(sent, "latin1").toString("utf8")).toBe("\u00e9t\u00e9")
  })

  it("an event id with a control character ends the stream with DECODE_ERROR saying why, instead of reconnecting without it", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end("id: a\u0007b\ndata: first\n\n")
    }
    // unlimited reconnects: each would have failed to send, for ever
    const read = await face.sse("/events", { reconnect: { delay: 10 } })
    expect(read.events.map((event) => event.data)).toEqual(["first"])
    expect(read.outcome).toEqual({
      success: false,
      status: 200,
      code: "DECODE_ERROR",
      error:
        "Response could not be decoded: the event id the server set cannot be sent back as Last-Event-ID: it holds a control character"
    })
    expect(seen).toHaveLength(1)
  })

  it("a live feed sent gzipped hands each flushed event over as it comes, the connection still open", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" })
      const gzip = Zlib.createGzip()
      gzip.pipe(response)
      // one event, flushed, then nothing more: the connection stays open
      gzip.write("data: one\n\n")
      gzip.flush()
    }
    const read = await face.sse("/events", { reconnect: false }, undefined, 1)
    expect(read.events.map((event) => event.data)).toEqual(["one"])
  })

  it("a body its Content-Encoding does not undo ends the events with NETWORK_ERROR", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" })
      // one event that decodes, then bytes that do not
      response.end(Buffer.concat([Zlib.gzipSync("data: one\n\n"), Buffer.from("garbage")]))
    }
    const read = await face.sse("/events", { reconnect: false })
    expect(read.outcome).toMatchObject({ success: false, code: "NETWORK_ERROR" })
    expect((read.outcome as { error: string }).error).toMatch(/the response body failed/)
  })

  it("each reconnect is one try: the client's retryAttempts do not multiply it", async () => {
    handler = (_, response, index) => {
      if (index === 0) {
        sseHead(response)
        return response.end("data: first\n\n")
      }
      response.writeHead(503, { "retry-after": "0" })
      response.end()
    }
    // the first connection's retries stay (retryAttempts 2), a reconnect's are reconnect.attempts
    const read = await face.sse(
      "/events",
      { reconnect: { delay: 10, attempts: 1 } },
      { retryAttempts: 2 }
    )
    expect(read.events.map((event) => event.data)).toEqual(["first"])
    expect(read.outcome).toMatchObject({ success: false, status: 503, code: "HTTP_ERROR" })
    expect(seen).toHaveLength(2)
  })

  it("the first connection is retried as any request is", async () => {
    handler = (_, response, index) => {
      if (index === 0) {
        response.writeHead(503, { "retry-after": "0" })
        return response.end()
      }
      sseHead(response)
      response.end("data: after a retry\n\n")
    }
    const read = await face.sse("/events", { reconnect: false }, { retryAttempts: 1 })
    expect(read.events.map((event) => event.data)).toEqual(["after a retry"])
    expect(seen).toHaveLength(2)
  })

  it("the signal closes the connection", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.write("data: one\n\n")
    }
    const controller = new AbortController()
    const pending = face.sse("/events", { signal: controller.signal }, undefined)
    await until(() => seen.length === 1, "the request")
    setTimeout(() => controller.abort(), 30)
    const read = await pending
    expect(read.events.map((event) => event.data)).toEqual(["one"])
    expect(read.outcome).toMatchObject({ success: false, code: "ABORTED" })
    await until(() => closedEarly("/events") === 1, "the connection to close")
  })

  it("a body the call got but does not hand over (aborted while onResponse runs) is closed", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      response.write("partial")
    }
    const controller = new AbortController()
    const pending = face.stream(
      "/held",
      { signal: controller.signal },
      { onResponse: () => new Promise<void>(() => undefined) }
    )
    await until(() => seen.length === 1, "the request")
    await new Promise((resolve) => setTimeout(resolve, 30))
    controller.abort()
    const read = await pending
    expect(read.response).toMatchObject({ success: false, code: "ABORTED" })
    await until(() => closedEarly("/held") === 1, "the connection to close")
  })

  it("the signal ends the events while a reconnection waits for its answer", async () => {
    // the first connection ends after one event; the reconnection is never answered
    handler = (_, response, index) => {
      if (index > 0) return
      sseHead(response)
      response.end("data: one\n\n")
    }
    const controller = new AbortController()
    const pending = face.sse("/events", { signal: controller.signal, reconnect: { delay: 5 } })
    await until(() => seen.length === 2, "the reconnection")
    controller.abort()
    const read = await pending
    expect(read.events.map((event) => event.data)).toEqual(["one"])
    expect(read.outcome).toMatchObject({ success: false, code: "ABORTED" })
    await until(() => closedEarly("/events") === 1, "the reconnection to close")
    expect(seen).toHaveLength(2)
  })
})

/**
 * The cases that wait on real time (a total limit, heartbeats past an idle limit): one test each,
 * run on every face at once, each face on a path of its own, so the waits overlap.
 */
describe("stream and sse, on every face at once", () => {
  /** Runs `check` on each face with its own path; a failure names the face. */
  const onEveryFace = (path: string, check: (face: Face, path: string) => Promise<void>) =>
    Promise.all(
      faces.map((face, at) =>
        check(face, `${path}-${at}`).catch((error: unknown) => {
          throw new Error(
            `${face.name}: ${error instanceof Error ? error.message : String(error)}`,
            {
              cause: error
            }
          )
        })
      )
    )
  /** The exchanges on `path` so far, its query aside. */
  const seenOn = (path: string) => seen.filter((exchange) => exchange.path.split("?")[0] === path)

  it("stream: totalTimeout errors a body that outlasts it with code TIMEOUT and closes the connection", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      response.write("then silence")
    }
    // long enough for a loaded machine to connect and read the first bytes within it
    await onEveryFace("/stall", async (face, path) => {
      const read = await face.stream(path, { totalTimeout: 1_500 })
      expect(text(read.bytes)).toBe("then silence")
      expect((read.error as Error & { code?: string }).code).toBe("TIMEOUT")
      expect(read.error?.message).toMatch(
        new RegExp(`1500 ms.*GET http://127\\.0\\.0\\.1:\\d+${path}\\b`)
      )
      await until(() => closedEarly(path) === 1, "the connection to close")
    })
  })

  it("sse: totalTimeout ends the events with TIMEOUT and closes the connection", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.write("data: one\n\n")
    }
    // long enough for a loaded machine to connect and read the first event within it
    await onEveryFace("/events", async (face, path) => {
      const read = await face.sse(path, { totalTimeout: 1_500 }, undefined)
      expect(read.events.map((event) => event.data)).toEqual(["one"])
      expect(read.outcome).toMatchObject({ success: false, code: "TIMEOUT" })
      await until(() => closedEarly(path) === 1, "the connection to close")
    })
  })

  it("sse: heartbeats keep an idle connection open; silence past idleTimeout is a dropped connection", async () => {
    handler = (request, response) => {
      sseHead(response)
      if (seenOn((request.url ?? "").split("?")[0] ?? "").length === 1) {
        // heartbeats every 20 ms for 1.2 s (twice the idle limit), then silence
        response.write("data: a\n\n")
        const beat = setInterval(() => response.write(":\n\n"), 20)
        setTimeout(() => {
          clearInterval(beat)
          response.write("data: b\n\n")
        }, 1_200)
      } else {
        response.end("data: after reconnect\n\n")
      }
    }
    // 600 ms: the server runs in this process, so a stall of the process (a loaded machine) that
    // outlasts the limit would end the connection though heartbeats were due
    await onEveryFace("/beats", async (face, path) => {
      const read = await face.sse(path, { idleTimeout: 600, reconnect: { delay: 5 } }, undefined, 3)
      expect(read.events.map((event) => event.data)).toEqual(["a", "b", "after reconnect"])
      expect(seenOn(path)).toHaveLength(2)
      await until(() => closedEarly(path) >= 1, "the stalled connection to close")
    })
  })
})

describe("stream on the facade: a response interceptor's body", () => {
  it("a body an interceptor wraps, to read it later, is read whole", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      response.write("hello ")
      setTimeout(() => response.end("world"), 20)
    }
    const svc = createSvc(origin)
    const decoder = new TextDecoder()
    const encoder = new TextEncoder()
    svc.addResponseInterceptor((response) => {
      if (!response.success || !(response.data instanceof ReadableStream)) return response
      const source = response.data as ReadableStream<Uint8Array>
      // the body is read (and locked) only when the caller reads
      async function* upper() {
        for await (const chunk of source as unknown as AsyncIterable<Uint8Array>) {
          yield encoder.encode(decoder.decode(chunk).toUpperCase())
        }
      }
      const iterator = upper()
      return {
        ...response,
        data: new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            const next = await iterator.next()
            if (next.done) controller.close()
            else controller.enqueue(next.value)
          }
        })
      }
    })
    const response = await svc.stream("/wrapped")
    if (!response.success) throw new Error(response.error)
    await new Promise((resolve) => setTimeout(resolve, 30))
    let text = ""
    for await (const chunk of response.data as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk)
    }
    expect(text).toBe("HELLO WORLD")
  })
})

describe("sse on the facade: EventStream", () => {
  it("close() ends the iteration without throwing; closed is a success; lastEventId is the stream's", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.write("id: e1\ndata: one\n\n")
    }
    const feed = await createSvc(origin).sse("/events")
    if (!feed.success) throw new Error(feed.error)
    const events: Array<string> = []
    setTimeout(() => feed.data.close(), 50)
    for await (const event of feed.data) events.push(event.data)
    expect(events).toEqual(["one"])
    expect(feed.data.lastEventId).toBe("e1")
    expect(await feed.data.closed).toEqual({ success: true, status: 200, data: undefined })
    await until(() => closedEarly("/events") === 1, "the connection to close")
  })

  it("the response carries the first connection's headers, on a 200 and on a 204", async () => {
    handler = (request, response) => {
      if (request.url?.startsWith("/none")) {
        response.writeHead(204, { "x-request-id": "r-204" }).end()
        return
      }
      response.writeHead(200, { "content-type": "text/event-stream", "x-request-id": "r-200" })
      response.end("data: a\n\n")
    }
    const svc = createSvc(origin)
    const feed = await svc.sse("/events", { reconnect: false })
    if (!feed.success) throw new Error(feed.error)
    expect(feed.headers?.["x-request-id"]).toBe("r-200")
    expect(feed.headers?.["content-type"]).toBe("text/event-stream")
    feed.data.close()
    const ended = await svc.sse("/none")
    if (!ended.success) throw new Error(ended.error)
    expect(ended.status).toBe(204)
    expect(ended.headers?.["x-request-id"]).toBe("r-204")
  })

  it("lastEventId is the id of the last event handed out, not of events parsed ahead of the reader", async () => {
    handler = (_, response) => {
      sseHead(response)
      // six events in one write: the parser reads them all before the caller has the first
      response.write(
        Array.from({ length: 6 }, (_, i) => `id: ${i + 1}\ndata: ${i + 1}\n\n`).join("")
      )
    }
    const feed = await createSvc(origin).sse("/events", { lastEventId: "0" })
    if (!feed.success) throw new Error(feed.error)
    expect(feed.data.lastEventId).toBe("0")
    const read: Array<string> = []
    for await (const event of feed.data) {
      read.push(event.id)
      expect(feed.data.lastEventId).toBe(event.id)
      if (read.length === 2) break
    }
    // resuming from it sends events 3 to 6 again: none of them reached the caller
    expect(feed.data.lastEventId).toBe("2")
    expect(await feed.data.closed).toEqual({ success: true, status: 200, data: undefined })
    expect(feed.data.lastEventId).toBe("2")
  })

  it("once every event is handed out, lastEventId is the stream's, an id-only block after them included", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end("id: 1\ndata: a\n\nid: 9\n\n")
    }
    const feed = await createSvc(origin).sse("/events", { reconnect: false })
    if (!feed.success) throw new Error(feed.error)
    const read: Array<string> = []
    for await (const event of feed.data) read.push(event.data)
    expect(read).toEqual(["a"])
    expect(feed.data.lastEventId).toBe("9")
  })

  it("a server's retry: longer than a timer holds is not a reconnect at once", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end("retry: 3000000000\ndata: one\n\n")
    }
    const feed = await createSvc(origin).sse("/events")
    if (!feed.success) throw new Error(feed.error)
    const events: Array<SseEvent<unknown>> = []
    // the body has ended: a timer that overflowed would reconnect within a millisecond, again and
    // again (the test clock serves the Effect API's case, below)
    setTimeout(() => feed.data.close(), 100)
    for await (const event of feed.data) events.push(event)
    expect(events).toEqual([{ event: "message", data: "one", id: "", retry: 3_000_000_000 }])
    expect(seen).toHaveLength(1)
  })

  it("is read through a Proxy (Vue's reactive) and copied by a spread, lastEventId included", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end("id: 1\ndata: a\n\nid: 2\ndata: b\n\n")
    }
    const open = async () => {
      const feed = await createSvc(origin).sse("/events", { reconnect: false })
      if (!feed.success) throw new Error(feed.error)
      return feed.data
    }
    const read = async (events: AsyncIterable<SseEvent<unknown>>) => {
      const data: Array<unknown> = []
      for await (const event of events) data.push(event.data)
      return data
    }
    const proxied = new Proxy(await open(), {})
    expect(await read(proxied)).toEqual(["a", "b"])
    expect(proxied.lastEventId).toBe("2")
    const stream = await open()
    expect(Object.keys(stream)).toEqual(["close", "lastEventId", "closed"])
    const copy = { ...stream, label: "feed" }
    expect(await read(copy)).toEqual(["a", "b"])
    expect({ ...stream }.lastEventId).toBe("2")
  })

  it("close() while a reconnection's answer comes back closes that connection too", async () => {
    // the first connection of each path ends after one event; its reconnection is kept open
    handler = (request, response) => {
      sseHead(response)
      const connections = seen.filter((exchange) => exchange.path === request.url).length
      if (connections === 1) response.end("data: one\n\n")
      else response.write(": open\n\n")
    }
    // close() comes a few microtasks after the reconnection's onResponse: at one step or another
    // of handing its answer back
    for (let depth = 0; depth < 8; depth++) {
      const path = `/reconnected-${depth}`
      let feed: EventStream<unknown> | undefined
      let responses = 0
      const svc = createSvc(origin, {
        retryAttempts: 0,
        onResponse: () => {
          if (++responses !== 2) return
          let turn = Promise.resolve()
          for (let i = 0; i < depth; i++) turn = turn.then(() => undefined)
          void turn.then(() => feed?.close())
        }
      })
      const opened = await svc.sse(path, { reconnect: { delay: 1 } })
      if (!opened.success) throw new Error(opened.error)
      feed = opened.data
      const events: Array<unknown> = []
      for await (const event of feed) events.push(event.data)
      expect(events).toEqual(["one"])
      expect(await feed.closed).toEqual({ success: true, status: 200, data: undefined })
      expect(seen.filter((exchange) => exchange.path === path)).toHaveLength(2)
      await until(() => closedEarly(path) === 1, `the reconnection of ${path} to close`)
    }
  })

  it("events read at once are handed out one by one; close() among them ends the iteration there", async () => {
    handler = (_, response) => {
      sseHead(response)
      // five events in one write: one read of the body, one batch
      response.write(Array.from({ length: 5 }, (_, i) => `id: ${i}\ndata: event ${i}\n\n`).join(""))
    }
    const feed = await createSvc(origin).sse("/events")
    if (!feed.success) throw new Error(feed.error)
    const events: Array<string> = []
    for await (const event of feed.data) {
      events.push(event.data)
      if (events.length === 2) feed.data.close()
    }
    expect(events).toEqual(["event 0", "event 1"])
    expect(await feed.data.closed).toEqual({ success: true, status: 200, data: undefined })
    await until(() => closedEarly("/events") === 1, "the connection to close")
  })

  it("next() called again before the last one settled answers every event once, in order", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.write("data: a\n\ndata: b\n\n")
      setTimeout(() => response.end("data: c\n\n"), 20)
    }
    const feed = await createSvc(origin).sse("/events", { reconnect: false })
    if (!feed.success) throw new Error(feed.error)
    const iterator = feed.data[Symbol.asyncIterator]()
    const results = await Promise.all(Array.from({ length: 5 }, () => iterator.next()))
    expect(results).toMatchObject([
      { done: false, value: { data: "a" } },
      { done: false, value: { data: "b" } },
      { done: false, value: { data: "c" } },
      { done: true },
      { done: true }
    ])
    expect(await feed.data.closed).toMatchObject({ success: true })
  })

  it("the first request's failure resolves the promise (never rejects), nothing to iterate", async () => {
    const response = await createSvc("http://127.0.0.1:1").sse("/events")
    expect(response).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
  })

  it("an invalid option is INVALID_REQUEST naming it, nothing sent", async () => {
    const svc = createSvc(origin)
    const bad = [
      [{ method: "TRACE" }, "options.method"],
      [{ reconnect: { attempts: -1 } }, "options.reconnect.attempts"],
      [{ lastEventId: "a\r\nx-injected: 1" }, "options.lastEventId"],
      [{ lastEventId: "a\u0007b" }, "options.lastEventId"],
      [{ idleTimeout: -5 }, "options.idleTimeout"],
      // fetch refuses it, undici sent it: the same answer everywhere
      [{ body: { q: 1 } }, "options.body must be absent from a GET request"],
      [{ method: "GET", body: null }, "options.body must be absent from a GET request"],
      [{ totalTimeout: "abc" }, "options.totalTimeout"],
      // entries that are not its keys, and what is no object: not read as no headers at all
      [
        { headers: new Headers({ "x-filter": "1" }) },
        "options.headers must be an object, got a Headers"
      ],
      [{ headers: new Map([["x-filter", "1"]]) }, "options.headers must be an object, got a Map"],
      [{ headers: "ab" }, "options.headers must be an object"],
      [{ headers: null }, "options.headers must be an object, got null"],
      // an own __proto__ key (as JSON makes it) is refused as on every call, not dropped unsent
      [
        { headers: JSON.parse('{"__proto__":"x"}') },
        "options.headers are invalid: header name must be an HTTP token other than __proto__"
      ]
    ] as const
    for (const [options, name] of bad) {
      const response = await svc.sse("/events", options as never)
      expect(response).toMatchObject({ success: false, code: "INVALID_REQUEST" })
      expect((response as { error: string }).error).toContain(name)
    }
    expect(seen).toHaveLength(0)
  })
})

describe("the Effect API's sse: a body that is not an event stream", () => {
  it("fails with a DecodeError like any other, whose message names the body's fault, not a schema", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/html" })
      response.end("<p>hi</p>")
    }
    const client = await Effect.runPromise(
      Effect.provide(SvcClient, SvcClient.layerDefault(origin))
    )
    const error = await Effect.runPromise(Effect.flip(Stream.runDrain(client.sse("/html"))))
    expect(error).toBeInstanceOf(DecodeError)
    expect(error).toMatchObject({ _tag: "DecodeError", code: "DECODE_ERROR", status: 200 })
    expect(error.message).toBe(
      'Response could not be decoded: the response is not text/event-stream: its Content-Type is "text/html"'
    )
  })
})

describe("the Effect API's sse: chunks", () => {
  it("the events of one read reach the Stream as one chunk, in order", async () => {
    handler = (_, response) => {
      sseHead(response)
      response.end("data: a\n\nid: 2\ndata: b\n\nevent: c\ndata: c\n\n")
    }
    const client = await Effect.runPromise(
      Effect.provide(SvcClient, SvcClient.layerDefault(origin))
    )
    const chunks = await Effect.runPromise(
      Stream.runCollect(Stream.chunks(client.sse("/one-read", { reconnect: false })))
    )
    const read = Array.from(chunks, (chunk) => Array.from(chunk))
    expect(read.map((chunk) => chunk.map((event) => event.data))).toEqual([["a", "b", "c"]])
    expect(read[0]).toEqual([
      { event: "message", data: "a", id: "" },
      { event: "message", data: "b", id: "2" },
      { event: "c", data: "c", id: "2" }
    ])
  })
})

describe("a body that decodes to far more than it is (a bomb), read slowly", () => {
  const MEBIBYTE = 2 ** 20
  /** 256 MiB of "a" as br: about 400 bytes. */
  let bomb = Buffer.alloc(0)
  beforeAll(async () => {
    const encoder = Zlib.createBrotliCompress({
      params: { [Zlib.constants.BROTLI_PARAM_QUALITY]: 5 }
    })
    const parts: Array<Buffer> = []
    encoder.on("data", (part: Buffer) => parts.push(part))
    const block = Buffer.alloc(16 * MEBIBYTE, 0x61)
    for (let i = 0; i < 16; i++) encoder.write(block)
    encoder.end()
    await new Promise((resolve) => encoder.on("end", resolve))
    bomb = Buffer.concat(parts)
  })
  beforeEach(() => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-encoding": "br" })
      response.end(bomb)
    }
  })
  /** The process's buffers, once collected: what an earlier test left does not count. */
  const buffersNow = () => {
    setFlagsFromString("--expose-gc")
    ;(runInNewContext("gc") as () => void)()
    return process.memoryUsage().arrayBuffers
  }
  /**
   * How much the process's buffers have grown since `before`, once the reader has waited half a
   * second after its first bytes (decoding goes on without a reader at about 180 MiB a second when
   * nothing holds it back).
   */
  const growthAfterWaiting = async (before: number) => {
    await new Promise((resolve) => setTimeout(resolve, 500))
    return process.memoryUsage().arrayBuffers - before
  }

  it("the facade's stream (undici): what is decoded waits for the reader", async () => {
    const before = buffersNow()
    const response = await createSvc(origin).stream("/bomb")
    if (!response.success) throw new Error(response.error)
    const reader = response.data.getReader()
    expect((await reader.read()).value?.[0]).toBe(0x61)
    const growth = await growthAfterWaiting(before)
    await reader.cancel()
    expect(growth).toBeLessThan(32 * MEBIBYTE)
  })

  it("the Effect API's stream (layerDefault): what is decoded waits for the stream's consumer", async () => {
    let growth = Number.NaN
    const before = buffersNow()
    await Effect.runPromise(
      Effect.flatMap(SvcClient, (client) =>
        Stream.runForEach(Stream.take(client.stream("/bomb"), 2), () =>
          Number.isNaN(growth)
            ? Effect.promise(async () => {
                growth = await growthAfterWaiting(before)
              })
            : Effect.void
        )
      ).pipe(Effect.provide(SvcClient.layerDefault(origin)))
    )
    expect(growth).toBeLessThan(32 * MEBIBYTE)
  })
})

describe("the Effect API on TestClock", () => {
  effectIt.effect("reconnects after reconnect.delay on the test clock, not before", () =>
    Effect.gen(function* () {
      seen.length = 0
      handler = (_, response, index) => {
        sseHead(response)
        response.end(`data: connection ${index}\n\n`)
      }
      const client = yield* Effect.provide(SvcClient, SvcClient.layerDefault(origin))
      const events: Array<string> = []
      const fiber = yield* fork(
        Stream.runForEach(
          Stream.take(client.sse("/events", { reconnect: { delay: "10 seconds" } }), 2),
          (event) => Effect.sync(() => events.push(event.data))
        )
      )
      while (events.length === 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
      // the first body has ended; nothing is sent again until the delay passes on the test clock
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      expect(seen).toHaveLength(1)
      yield* TestClock.adjust("9 seconds")
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      expect(seen).toHaveLength(1)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect(events).toEqual(["connection 0", "connection 1"])
      expect(seen).toHaveLength(2)
    })
  )

  effectIt.effect(
    "a server's retry: longer than a timer holds waits the longest a timer holds (2³¹ − 1 ms)",
    () =>
      Effect.gen(function* () {
        seen.length = 0
        handler = (_, response, index) => {
          sseHead(response)
          response.end(`retry: 3000000000\ndata: connection ${index}\n\n`)
        }
        const client = yield* Effect.provide(SvcClient, SvcClient.layerDefault(origin))
        const events: Array<string> = []
        const fiber = yield* fork(
          Stream.runForEach(Stream.take(client.sse("/events"), 2), (event) =>
            Effect.sync(() => events.push(event.data))
          )
        )
        while (events.length === 0)
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
        yield* TestClock.adjust(2 ** 31 - 2)
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
        expect(seen).toHaveLength(1)
        yield* TestClock.adjust(1)
        yield* Fiber.join(fiber)
        expect(events).toEqual(["connection 0", "connection 1"])
      })
  )

  effectIt.effect("idleTimeout on the test clock fails a silent stream with TimeoutError", () =>
    Effect.gen(function* () {
      abandoned.length = 0
      handler = (_, response) => {
        response.writeHead(200, { "content-type": "application/octet-stream" })
        response.write("some")
      }
      const client = yield* Effect.provide(SvcClient, SvcClient.layerDefault(origin))
      const chunks: Array<Uint8Array> = []
      const fiber = yield* fork(
        Effect.flip(
          Stream.runForEach(client.stream("/stall", { idleTimeout: "1 minute" }), (chunk) =>
            Effect.sync(() => chunks.push(chunk))
          )
        )
      )
      while (chunks.length === 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
      yield* TestClock.adjust("1 minute")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "TimeoutError", code: "TIMEOUT" })
      yield* Effect.promise(() =>
        until(() => closedEarly("/stall") === 1, "the connection to close")
      )
    })
  )

  effectIt.effect("interrupting the stream closes the connection", () =>
    Effect.gen(function* () {
      abandoned.length = 0
      handler = (_, response) => {
        sseHead(response)
        response.write("data: one\n\n")
      }
      const client = yield* Effect.provide(SvcClient, SvcClient.layerDefault(origin))
      const events: Array<string> = []
      const fiber = yield* fork(
        Stream.runForEach(client.sse("/events"), (event) =>
          Effect.sync(() => events.push(event.data))
        )
      )
      while (events.length === 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 5)))
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() =>
        until(() => closedEarly("/events") === 1, "the connection to close")
      )
    })
  )
})

/** Runs `then` after `depth` turns of the microtask queue. */
const afterMicrotasks = (depth: number, then: () => void) => {
  let turn = Promise.resolve()
  for (let i = 0; i < depth; i++) turn = turn.then(() => undefined)
  void turn.then(then)
}

/** Answers sse with one event then ends on a path's first connection, and keeps later ones open. */
const firstEndsThenOpen: Handler = (request, response) => {
  sseHead(response)
  const connections = seen.filter((exchange) => exchange.path === request.url).length
  if (connections === 1) response.end("data: one\n\n")
  else response.write(": open\n\n")
}

describe("the Effect API: a body between its answer and its first read", () => {
  const layers = [
    ["layerDefault", (config: SvcConfig) => SvcClient.layerDefault(origin, config)],
    [
      "SvcClient.layer(NodeHttpClient.layerUndici)",
      (config: SvcConfig) =>
        SvcClient.layer(origin, config).pipe(Layer.provide(NodeHttpClient.layerUndici))
    ],
    [
      "SvcClient.layer(FetchHttpClient)",
      (config: SvcConfig) =>
        SvcClient.layer(origin, config).pipe(Layer.provide(FetchHttpClient.layer))
    ]
  ] as const

  // the fiber yields to the scheduler every few operations, so an interruption sent from
  // `onResponse` lands at one of the steps between the answer and the first read, which one
  // depending on the budget and on the number of microtasks before it is sent
  it.each(layers)(
    "interrupted there, stream and sse close the connection (%s)",
    async (_, layerOf) => {
      handler = (request, response) => {
        if ((request.url ?? "").startsWith("/handover-sse")) sseHead(response)
        else response.writeHead(200, { "content-type": "application/octet-stream" })
        response.write(": open\n\n")
      }
      for (const kind of ["stream", "sse"] as const) {
        for (const ops of [12, 16, 24, 32]) {
          for (let depth = 0; depth < 4; depth++) {
            const path = `/handover-${kind}-${ops}-${depth}`
            let fiber: Fiber.RuntimeFiber<void, SvcError> | undefined
            const interrupt = () => void Effect.runPromise(Fiber.interrupt(fiber!))
            const config = { retryAttempts: 0, onResponse: () => afterMicrotasks(depth, interrupt) }
            const read = Effect.flatMap(SvcClient, (client) =>
              kind === "stream"
                ? Stream.runDrain(client.stream(path))
                : Stream.runDrain(client.sse(path))
            )
            fiber = Effect.runFork(
              withMaxOpsBeforeYield(Effect.provide(read, layerOf(config)), ops)
            )
            const exit = await Effect.runPromise(Fiber.await(fiber))
            expect(exit._tag).toBe("Failure")
            await until(() => closedEarly(path) === 1, `the connection of ${path} to close`)
          }
        }
      }
    }
  )

  // Effect 4's FetchHttpClient body goes through Effect's own `Stream.toReadableStream` and
  // `fromReadableStream`, which takes its reader a step before it registers its release: a body
  // cancelled while that fiber yields in between stays open (Effect's, reached only with a budget
  // this small), so that client is left out there
  const reconnecting = LINE === 4 ? layers.slice(0, 2) : layers

  it.each(reconnecting)(
    "an sse whose signal aborts while a reconnection's answer comes back closes that connection (%s)",
    async (_, layerOf) => {
      handler = firstEndsThenOpen
      for (const ops of [12, 16, 24, 32]) {
        for (let depth = 0; depth < 4; depth++) {
          const path = `/reconnecting-${ops}-${depth}`
          const controller = new AbortController()
          let responses = 0
          const config = {
            retryAttempts: 0,
            onResponse: () => {
              if (++responses === 2) afterMicrotasks(depth, () => controller.abort())
            }
          }
          const read = Effect.flatMap(SvcClient, (client) =>
            Stream.runDrain(
              client.sse(path, { reconnect: { delay: 1 }, signal: controller.signal })
            )
          )
          const exit = await Effect.runPromise(
            Effect.exit(withMaxOpsBeforeYield(Effect.provide(read, layerOf(config)), ops))
          )
          expect(exit._tag).toBe("Failure")
          expect(seen.filter((exchange) => exchange.path === path)).toHaveLength(2)
          await until(() => closedEarly(path) === 1, `the reconnection of ${path} to close`)
        }
      }
    }
  )
})

describe("the facade: a body its call got but did not hand over", () => {
  it("a signal aborted at any step between the answer and the handing over closes the connection (stream, sse)", async () => {
    handler = (request, response) => {
      if ((request.url ?? "").startsWith("/aborted-sse")) sseHead(response)
      else response.writeHead(200, { "content-type": "application/octet-stream" })
      response.write(": open\n\n")
    }
    for (const kind of ["stream", "sse"] as const) {
      for (let depth = 0; depth < 8; depth++) {
        const path = `/aborted-${kind}-${depth}`
        const controller = new AbortController()
        const svc = createSvc(origin, {
          retryAttempts: 0,
          onResponse: () => afterMicrotasks(depth, () => controller.abort())
        })
        const options = { signal: controller.signal }
        const response =
          kind === "stream" ? await svc.stream(path, options) : await svc.sse(path, options)
        // handed over before the abort (the body's own watch of the signal closes it), or not
        if (!response.success) expect(response.code).toBe("ABORTED")
        await until(() => closedEarly(path) === 1, `the connection of ${path} to close`)
      }
    }
  })
})

describe("a streamed body a response interceptor replaced, when the call then fails", () => {
  type Interceptor = (response: ApiResponse<unknown>) => unknown
  /** A stream in place of the body that reads it: the body is locked at once. */
  const piped: Interceptor = (response) =>
    response.success && response.data instanceof ReadableStream
      ? { ...response, data: response.data.pipeThrough(new TransformStream()) }
      : response
  /** A stream in place of the body that takes its reader only when first read. */
  const lazy: Interceptor = (response) => {
    if (!response.success || !(response.data instanceof ReadableStream)) return response
    const body = response.data as ReadableStream<Uint8Array>
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
    const data = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          reader ??= body.getReader()
          const next = await reader.read()
          if (next.done) controller.close()
          else controller.enqueue(next.value)
        },
        cancel: (reason) => reader?.cancel(reason)
      },
      { highWaterMark: 0 }
    )
    return { ...response, data }
  }
  /** A stream in place of the body whose own cancel throws. */
  class Brittle extends ReadableStream<Uint8Array> {
    override cancel(): Promise<void> {
      throw new Error("cancel exploded")
    }
  }
  const brittle: Interceptor = (response) =>
    response.success && response.data instanceof ReadableStream
      ? { ...response, data: new Brittle() }
      : response
  const failingOnResponse = () => {
    throw new Error("onResponse failed")
  }

  /** The call on each face: its code, and whether its connection closed. */
  const onBothFaces = async (
    path: string,
    interceptor: Interceptor,
    config: SvcConfig,
    kind: "stream" | "sse",
    options: object = {}
  ) => {
    const svc = createSvc(origin, { retryAttempts: 0, ...config })
    svc.addResponseInterceptor(interceptor as never)
    const facadeAnswer =
      kind === "stream"
        ? await svc.stream(`${path}-facade`, options)
        : await svc.sse(`${path}-facade`, options)
    const effectAnswer = await Effect.runPromise(
      Effect.flatMap(SvcClient, (client) =>
        Effect.andThen(
          client.addResponseInterceptor(interceptor as never),
          kind === "stream"
            ? Stream.runDrain(client.stream(`${path}-effect`, options))
            : Stream.runDrain(client.sse(`${path}-effect`, options))
        )
      ).pipe(
        Effect.match({ onFailure: (error) => error.code, onSuccess: () => "success" }),
        Effect.provide(SvcClient.layerDefault(origin, { retryAttempts: 0, ...config }))
      )
    )
    await until(() => closedEarly(`${path}-facade`) === 1, `the facade's ${path} to close`)
    await until(() => closedEarly(`${path}-effect`) === 1, `the Effect API's ${path} to close`)
    return { facade: facadeAnswer.success ? "success" : facadeAnswer.code, effect: effectAnswer }
  }

  const opened = (contentType: string) => (_: unknown, response: Http.ServerResponse) => {
    response.writeHead(200, { "content-type": contentType })
    response.write("partial")
  }

  it("a stream that reads it (piped, or lazily), after onResponse throws: its connection closes", async () => {
    handler = opened("application/octet-stream")
    for (const [name, interceptor] of [
      ["piped", piped],
      ["lazy", lazy]
    ] as const) {
      const answers = await onBothFaces(
        `/${name}`,
        interceptor,
        { onResponse: failingOnResponse },
        "stream"
      )
      expect(answers).toEqual({ facade: "INTERCEPTOR_ERROR", effect: "INTERCEPTOR_ERROR" })
    }
  })

  it("a piped body past the timeout while an interceptor waits: its connection closes", async () => {
    handler = opened("application/octet-stream")
    const slow: Interceptor = async (response) => {
      const replaced = piped(response)
      await new Promise((resolve) => setTimeout(resolve, 400))
      return replaced
    }
    const answers = await onBothFaces("/slow", slow, { timeout: 150 }, "stream")
    expect(answers).toEqual({ facade: "TIMEOUT", effect: "TIMEOUT" })
  })

  it("an sse answer that is not text/event-stream, lazily wrapped: its connection closes", async () => {
    handler = opened("application/json")
    const answers = await onBothFaces("/lazy-json", lazy, {}, "sse")
    expect(answers).toEqual({ facade: "DECODE_ERROR", effect: "DECODE_ERROR" })
  })

  it("a body onResponse began to read is the hooks' failure on each face, never a defect; its connection closes", async () => {
    const reading = (response: ApiResponse<unknown>) => {
      if (response.success && response.data instanceof ReadableStream) response.data.getReader()
    }
    const same: Interceptor = (response) => response
    handler = opened("application/octet-stream")
    expect(await onBothFaces("/read-stream", same, { onResponse: reading }, "stream")).toEqual({
      facade: "INTERCEPTOR_ERROR",
      effect: "INTERCEPTOR_ERROR"
    })
    handler = opened("text/event-stream")
    expect(await onBothFaces("/read-sse", same, { onResponse: reading }, "sse")).toEqual({
      facade: "INTERCEPTOR_ERROR",
      effect: "INTERCEPTOR_ERROR"
    })
  })

  it("a body a response interceptor replaced with something that is not a stream: the hooks' failure, its connection closed", async () => {
    const text: Interceptor = (response) =>
      response.success ? { ...response, data: "not a stream" } : response
    handler = opened("application/octet-stream")
    expect(await onBothFaces("/text-stream", text, {}, "stream")).toEqual({
      facade: "INTERCEPTOR_ERROR",
      effect: "INTERCEPTOR_ERROR"
    })
    handler = opened("text/event-stream")
    expect(await onBothFaces("/text-sse", text, {}, "sse")).toEqual({
      facade: "INTERCEPTOR_ERROR",
      effect: "INTERCEPTOR_ERROR"
    })
  })

  it("a replacement whose cancel throws: the facade still answers, the Effect API still fails typed", async () => {
    handler = opened("application/octet-stream")
    const answers = await onBothFaces(
      "/brittle",
      brittle,
      { onResponse: failingOnResponse },
      "stream"
    )
    expect(answers).toEqual({ facade: "INTERCEPTOR_ERROR", effect: "INTERCEPTOR_ERROR" })
  })
})
