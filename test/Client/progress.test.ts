/**
 * `onDownloadProgress` and `onUploadProgress` (SPEC 4.8) against a real node:http server on
 * 127.0.0.1, on both faces and every Node transport (undici, fetch, the HttpClient adapter over
 * FetchHttpClient and NodeHttpClient), shared by both Effect lines: bodies with and without a
 * length, compressed, empty, cut short, over the limit; uploads of every body kind; callbacks that
 * throw; a request's callback replacing the client's; `stream` and `sse`.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Net from "node:net"
import { runInNewContext } from "node:vm"
import * as Zlib from "node:zlib"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { foldError } from "../../src/common/client.js"
import { meter, progressOf, utf8Length } from "../../src/core/progress.js"
import {
  type ApiResponse,
  createSvc,
  type Progress,
  type SseEvent,
  SvcClient,
  type SvcClientService,
  type SvcConfig,
  type SvcError
} from "../../src/v3/Client/index.js"
import { FetchHttpClient, NodeHttpClient } from "../Auth/lineKit.js"

type Handler = (request: Http.IncomingMessage, response: Http.ServerResponse) => void

interface Received {
  readonly headers: Http.IncomingHttpHeaders
  readonly bytes: number
}

let server: Http.Server
let origin = ""
let handler: Handler = (_, response) => response.end()
const received: Array<Received> = []
const sockets = new Set<Net.Socket>()

beforeAll(async () => {
  server = Http.createServer((request, response) => {
    let bytes = 0
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.byteLength
    })
    request.on("end", () => {
      received.push({ headers: request.headers, bytes })
      handler(request, response)
    })
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
  received.length = 0
})

/** Resolves after every pending I/O callback and timer of a few turns. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30))

/** Writes `body` in `parts` pieces, a turn apart, so that the client reads it in several chunks. */
const writeInParts = (response: Http.ServerResponse, body: Buffer, parts: number) => {
  const size = Math.ceil(body.byteLength / parts)
  let at = 0
  const next = () => {
    if (at >= body.byteLength) return response.end()
    response.write(body.subarray(at, at + size))
    at += size
    setTimeout(next, 5)
  }
  next()
}

/** What a face answers: the response, and the bytes a stream gave. */
interface Read {
  readonly response: ApiResponse<unknown>
  readonly bytes?: number
}

interface Face {
  readonly name: string
  /** Whether its transport sends a body chunk by chunk (undici), not whole. */
  readonly streamsUploads: boolean
  /** Whether its transport decodes a compressed body as it arrives (undici, fetch). */
  readonly decodesAsItReads: boolean
  readonly call: (
    method: "GET" | "POST" | "PUT",
    endpoint: string,
    body?: unknown,
    options?: object,
    config?: SvcConfig
  ) => Promise<ApiResponse<unknown>>
  /** Reads the stream, calling `onChunk` after each chunk. */
  readonly stream: (
    endpoint: string,
    options: object,
    onChunk: (bytes: number, chunk: Uint8Array) => void,
    config?: SvcConfig
  ) => Promise<Read>
  /** Reads `count` events, then closes the stream. */
  readonly sse: (
    endpoint: string,
    options: object,
    count: number,
    config?: SvcConfig
  ) => Promise<Array<SseEvent<unknown>>>
}

const facade = (name: string, extra: SvcConfig, streamsUploads: boolean): Face => ({
  name,
  streamsUploads,
  decodesAsItReads: true,
  call: (method, endpoint, body, options, config) => {
    const svc = createSvc(origin, { retryAttempts: 0, ...extra, ...config })
    switch (method) {
      case "GET":
        return svc.get(endpoint, options)
      case "POST":
        return svc.post(endpoint, body, options)
      case "PUT":
        return svc.put(endpoint, body, options)
    }
  },
  stream: async (endpoint, options, onChunk, config) => {
    const response = await createSvc(origin, { retryAttempts: 0, ...extra, ...config }).stream(
      endpoint,
      options
    )
    if (!response.success) return { response }
    const reader = response.data.getReader()
    let bytes = 0
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      bytes += next.value.byteLength
      onChunk(next.value.byteLength, next.value)
    }
    return { response, bytes }
  },
  sse: async (endpoint, options, count, config) => {
    const response = await createSvc(origin, { retryAttempts: 0, ...extra, ...config }).sse(
      endpoint,
      options
    )
    if (!response.success) return []
    const events: Array<SseEvent<unknown>> = []
    for await (const event of response.data) {
      events.push(event)
      if (events.length >= count) response.data.close()
    }
    return events
  }
})

const effectFace = (
  name: string,
  layerOf: (config: SvcConfig) => Layer.Layer<SvcClient>,
  streamsUploads: boolean,
  decodesAsItReads: boolean
): Face => {
  const run = <A>(
    config: SvcConfig | undefined,
    f: (client: SvcClientService) => Effect.Effect<A, SvcError>
  ) =>
    Effect.runPromise(
      Effect.flatMap(SvcClient, f).pipe(
        Effect.provide(layerOf({ retryAttempts: 0, ...config }))
      ) as Effect.Effect<A>
    )
  return {
    name,
    streamsUploads,
    decodesAsItReads,
    call: (method, endpoint, body, options, config) =>
      run(config, (client) => {
        const sent =
          method === "POST"
            ? client.post(endpoint, body, options)
            : method === "PUT"
              ? client.put(endpoint, body, options)
              : client.get(endpoint, options)
        return Effect.match(sent as Effect.Effect<ApiResponse<unknown>, SvcError>, {
          onFailure: foldError,
          onSuccess: (response) => response
        })
      }),
    stream: (endpoint, options, onChunk, config) =>
      run(config, (client) => {
        let bytes = 0
        return Stream.runForEach(client.stream(endpoint, options), (chunk) =>
          Effect.sync(() => {
            bytes += chunk.byteLength
            onChunk(chunk.byteLength, chunk)
          })
        ).pipe(
          Effect.match({
            onFailure: (error): Read => ({ response: foldError(error) }),
            onSuccess: (): Read => ({
              response: { success: true, status: 200, data: undefined },
              bytes
            })
          })
        )
      }),
    sse: (endpoint, options, count, config) =>
      run(config, (client) => {
        const events: Array<SseEvent<unknown>> = []
        return Stream.runForEach(Stream.take(client.sse(endpoint, options), count), (event) =>
          Effect.sync(() => events.push(event))
        ).pipe(Effect.match({ onFailure: () => events, onSuccess: () => events }))
      })
  }
}

const faces: ReadonlyArray<Face> = [
  facade("facade over undici", {}, true),
  facade("facade over fetch", { fetch: (input, init) => globalThis.fetch(input, init) }, false),
  effectFace(
    "Effect API (layerDefault)",
    (config) => SvcClient.layerDefault(origin, config),
    true,
    true
  ),
  effectFace(
    "Effect API over SvcClient.layer(FetchHttpClient)",
    (config) => SvcClient.layer(origin, config).pipe(Layer.provide(FetchHttpClient.layer)),
    false,
    false
  ),
  effectFace(
    "Effect API over SvcClient.layer(NodeHttpClient.layerUndici)",
    (config) => SvcClient.layer(origin, config).pipe(Layer.provide(NodeHttpClient.layerUndici)),
    false,
    false
  )
]

/** A callback that records what it is told. */
const recorder = () => {
  const calls: Array<Progress> = []
  return { calls, callback: (progress: Progress) => void calls.push(progress) }
}

/** Every call is in order and in range: `loaded` never goes back, `progress` within [0, 1]. */
const expectOrdered = (calls: ReadonlyArray<Progress>) => {
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!
    if (i > 0) expect(call.loaded).toBeGreaterThanOrEqual(calls[i - 1]!.loaded)
    if (call.progress !== undefined) {
      expect(call.progress).toBeGreaterThanOrEqual(0)
      expect(call.progress).toBeLessThanOrEqual(1)
    }
  }
}

const BIG = Buffer.alloc(256 * 1024, "abcdefghij")

/** About 1 MB of words that compress to a few hundred KB: a gzip body of several chunks. */
const WORDS = (() => {
  let seed = 7
  const words: Array<string> = []
  for (let length = 0; length < 1_000_000; ) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    const word = seed.toString(36)
    words.push(word)
    length += word.length + 1
  }
  return words.join(" ")
})()

describe("Progress, computed once for every transport", () => {
  it("progress is loaded / total, clamped to 1 when a body outgrows its announced length", () => {
    expect(progressOf(5, 10)).toEqual({ loaded: 5, total: 10, progress: 0.5 })
    expect(progressOf(15, 10)).toEqual({ loaded: 15, total: 10, progress: 1 })
    expect(progressOf(0, 0)).toEqual({ loaded: 0, total: 0, progress: 1 })
    expect(progressOf(7, undefined)).toEqual({ loaded: 7 })
  })

  it("a meter reports each step, the end once, and ignores a throwing callback", () => {
    const { calls, callback } = recorder()
    const counter = meter((progress) => {
      callback(progress)
      throw new Error("the progress bar broke")
    }, 6)
    counter.add(2)
    counter.add(0)
    counter.add(4)
    counter.end()
    expect(calls).toEqual([
      { loaded: 2, total: 6, progress: 2 / 6 },
      { loaded: 6, total: 6, progress: 1 }
    ])
    const empty = recorder()
    meter(empty.callback, undefined).end()
    expect(empty.calls).toEqual([{ loaded: 0 }])
  })

  it("utf8Length counts a string's UTF-8 bytes without encoding it", () => {
    for (const text of ["", "plain", "héllo", "€uro", "😀 emoji", "\ud800 lone", "日本語"]) {
      expect(utf8Length(text)).toBe(Buffer.byteLength(text))
    }
  })
})

describe.each(faces)("onDownloadProgress, $name", (face) => {
  it("a body with a Content-Length: growing calls that end at its full length and progress 1", async () => {
    handler = (_, response) => {
      response.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": BIG.byteLength
      })
      writeInParts(response, BIG, 4)
    }
    const { calls, callback } = recorder()
    const response = await face.call("GET", "/big", undefined, {
      onDownloadProgress: callback,
      responseType: "bytes"
    })
    expect(response.success).toBe(true)
    expect((response.data as Uint8Array).byteLength).toBe(BIG.byteLength)
    expect(calls.length).toBeGreaterThan(0)
    expectOrdered(calls)
    expect(calls.every((call) => call.total === BIG.byteLength)).toBe(true)
    expect(calls.at(-1)).toEqual({ loaded: BIG.byteLength, total: BIG.byteLength, progress: 1 })
  })

  it("a chunked body (no Content-Length): no total and no progress, the last call its full length", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      writeInParts(response, BIG, 4)
    }
    const { calls, callback } = recorder()
    await face.call("GET", "/chunked", undefined, { onDownloadProgress: callback })
    expectOrdered(calls)
    expect(calls.every((call) => call.total === undefined && call.progress === undefined)).toBe(
      true
    )
    expect(calls.at(-1)).toEqual({ loaded: BIG.byteLength })
  })

  it("a gzip body counts its decoded bytes, with no total (its Content-Length is the encoded one)", async () => {
    const gzipped = Zlib.gzipSync(WORDS)
    handler = (_, response) => {
      response.writeHead(200, {
        "content-type": "text/plain",
        "content-encoding": "gzip",
        "content-length": gzipped.byteLength
      })
      writeInParts(response, gzipped, 4)
    }
    const { calls, callback } = recorder()
    const response = await face.call("GET", "/gzip", undefined, { onDownloadProgress: callback })
    expect(response.data).toBe(WORDS)
    expectOrdered(calls)
    expect(calls.every((call) => call.total === undefined)).toBe(true)
    expect(calls.at(-1)).toEqual({ loaded: WORDS.length })
    // decoded as it arrives where the transport can: told several times on the way
    if (face.decodesAsItReads) expect(calls.length).toBeGreaterThan(2)
    else expect(calls).toHaveLength(1)
  })

  it("a gzip body that decodes past maxResponseBytes stops, told no further than the limit", async () => {
    const gzipped = Zlib.gzipSync(WORDS)
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
      writeInParts(response, gzipped, 4)
    }
    const { calls, callback } = recorder()
    const response = await face.call(
      "GET",
      "/gzip-limited",
      undefined,
      { onDownloadProgress: callback },
      { maxResponseBytes: 200_000 }
    )
    expect(response).toMatchObject({ success: false, status: 200, code: "RESPONSE_TOO_LARGE" })
    await settle()
    expect(calls.every((call) => call.loaded <= 200_000)).toBe(true)
  })

  it("an empty body gets one call, loaded 0 (a 204 has no total; Content-Length: 0 is complete)", async () => {
    handler = (_, response) => {
      response.writeHead(204)
      response.end()
    }
    const noContent = recorder()
    const none = await face.call("GET", "/none", undefined, {
      onDownloadProgress: noContent.callback
    })
    expect(none).toMatchObject({ success: true, status: 204 })
    expect(noContent.calls).toEqual([{ loaded: 0 }])
    handler = (_, response) => {
      response.writeHead(200, { "content-length": 0 })
      response.end()
    }
    const empty = recorder()
    await face.call("GET", "/empty", undefined, { onDownloadProgress: empty.callback })
    expect(empty.calls).toEqual([{ loaded: 0, total: 0, progress: 1 }])
  })

  it("an HTTP failure's body is reported too; maxResponseBytes still stops a body, the calls never past it", async () => {
    const notFound = JSON.stringify({ error: "no such file" })
    handler = (_, response) => {
      response.writeHead(404, {
        "content-type": "application/json",
        "content-length": notFound.length
      })
      response.end(notFound)
    }
    const failure = recorder()
    const missing = await face.call("GET", "/missing", undefined, {
      onDownloadProgress: failure.callback
    })
    expect(missing).toMatchObject({ success: false, status: 404, error: "no such file" })
    expect(failure.calls.at(-1)).toEqual({
      loaded: notFound.length,
      total: notFound.length,
      progress: 1
    })
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      writeInParts(response, BIG, 4)
    }
    const limited = recorder()
    const tooLarge = await face.call(
      "GET",
      "/limited",
      undefined,
      { onDownloadProgress: limited.callback },
      { maxResponseBytes: 100_000 }
    )
    expect(tooLarge).toMatchObject({ success: false, code: "RESPONSE_TOO_LARGE" })
    await settle()
    expect(limited.calls.every((call) => call.loaded <= 100_000)).toBe(true)
  })

  it("a throwing callback is ignored: the request succeeds", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.end("fine")
    }
    let called = 0
    const response = await face.call("GET", "/throws", undefined, {
      onDownloadProgress: () => {
        called++
        throw new Error("the progress bar broke")
      }
    })
    expect(response).toMatchObject({ success: true, data: "fine" })
    expect(called).toBeGreaterThan(0)
  })

  it("an async callback that rejects is ignored too, one of another realm (a vm context, an iframe) included: no unhandled rejection", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.end("fine")
    }
    const unhandled: Array<unknown> = []
    const listen = (reason: unknown) => unhandled.push(reason)
    process.on("unhandledRejection", listen)
    try {
      let called = 0
      const rejects = async () => {
        called++
        throw new Error("the progress bar broke")
      }
      const elsewhere = runInNewContext("(async () => { throw new Error('another realm') })")
      for (const callback of [rejects, elsewhere]) {
        const response = await face.call("POST", "/rejects", "body", {
          onDownloadProgress: callback,
          onUploadProgress: callback
        })
        expect(response).toMatchObject({ success: true, data: "fine" })
      }
      expect(called).toBeGreaterThan(1)
      // a rejection nobody handles is reported once the microtasks have run
      await new Promise((resolve) => setTimeout(resolve, 10))
      expect(unhandled).toEqual([])
    } finally {
      process.off("unhandledRejection", listen)
    }
  })

  it("the client's callback serves every request; a request's own replaces it", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-length": 5 })
      response.end("hello")
    }
    const client = recorder()
    const own = recorder()
    await face.call("GET", "/a", undefined, {}, { onDownloadProgress: client.callback })
    await face.call(
      "GET",
      "/b",
      undefined,
      { onDownloadProgress: own.callback },
      { onDownloadProgress: client.callback }
    )
    expect(client.calls).toEqual([{ loaded: 5, total: 5, progress: 1 }])
    expect(own.calls).toEqual([{ loaded: 5, total: 5, progress: 1 }])
  })

  it("no call comes after the request was aborted, though the server goes on sending", async () => {
    let response: Http.ServerResponse | undefined
    handler = (_, res) => {
      response = res
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": BIG.byteLength
      })
      res.write(BIG.subarray(0, 1000))
    }
    const controller = new AbortController()
    const { calls, callback } = recorder()
    const result = await face.call("GET", "/abort", undefined, {
      signal: controller.signal,
      onDownloadProgress: (progress: Progress) => {
        callback(progress)
        controller.abort()
      }
    })
    expect(result).toMatchObject({ success: false, code: "ABORTED" })
    const seen = calls.length
    expect(seen).toBeGreaterThan(0)
    response?.write(BIG.subarray(1000, 5000))
    await settle()
    expect(calls.length).toBe(seen)
    response?.destroy()
  })

  it("an invalid callback is INVALID_REQUEST, nothing sent", async () => {
    const response = await face.call("GET", "/never", undefined, { onDownloadProgress: 42 })
    expect(response).toMatchObject({ success: false, code: "INVALID_REQUEST" })
    expect((response as { error: string }).error).toMatch(/options\.onDownloadProgress/)
    expect(received).toHaveLength(0)
  })
})

/** Waits (a little at a time, 2 s at most) for `ready`. */
const waitFor = async (ready: () => boolean, what: string) => {
  for (let waited = 0; !ready(); waited += 10) {
    if (waited > 2_000) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const IDLE_MESSAGE =
  /^Request timed out after 100 ms waiting for the body's next bytes \(idleTimeout\): GET http:\/\/127\.0\.0\.1:\d+\/stall$/

describe.each(faces)("idleTimeout on a body read whole, $name", (face) => {
  // fetch hands over a body decoded as it reads: there the wait for each read holds its decoding,
  // and a body decoded after its last byte, or held back by the client, is another transport's case
  const limit = /fetch/i.test(face.name) ? 1_000 : undefined
  /** Headers and a first piece, then silence; `closed` once the client let go of it. */
  const stalling = (status: number) => {
    const state = { closed: false }
    handler = (_, response) => {
      response.on("close", () => {
        state.closed = true
      })
      response.writeHead(status, { "content-type": "text/plain" })
      response.write("some")
    }
    return state
  }

  /** A GET of the stalling body under a 100 ms idle limit and no other. */
  const getStalled = () =>
    face.call("GET", "/stall", undefined, { idleTimeout: 100 }, { timeout: 0 })

  it("a body that stalls past idleTimeout fails with TIMEOUT naming it; the connection closes", async () => {
    const server = stalling(200)
    const response = await getStalled()
    expect(response).toMatchObject({ success: false, status: 0, code: "TIMEOUT" })
    expect(response.error).toMatch(IDLE_MESSAGE)
    await waitFor(() => server.closed, "the connection to close")
  })

  it("each piece of the body gives it idleTimeout more: a slow body that never falls silent that long arrives whole", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      let sent = 0
      const timer = setInterval(() => {
        response.write(`${sent}`)
        if (++sent === 8) {
          clearInterval(timer)
          response.end()
        }
      }, 60)
    }
    // 8 pieces 60 ms apart: longer than the limit in all, never that long between two
    const response = await face.call("GET", "/trickle", undefined, { idleTimeout: 300 })
    expect(response).toMatchObject({ success: true, data: "01234567" })
  })

  it("the client's idleTimeout serves every call, a request's 0 turns it off", async () => {
    stalling(200)
    const config = { idleTimeout: 100, timeout: 0 }
    const stalled = await face.call("GET", "/stall", undefined, {}, config)
    expect(stalled.error).toMatch(IDLE_MESSAGE)
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.write("late ")
      setTimeout(() => response.end("but whole"), 250)
    }
    const waited = await face.call("GET", "/slow", undefined, { idleTimeout: 0 }, config)
    expect(waited).toMatchObject({ success: true, data: "late but whole" })
  })

  it("the limit ends with the body's last byte: decoding a large gzip body is no silence", async () => {
    // 40 MiB of zeros: some 40 KB on the wire, sent at once, and longer than the limit to decode
    const zipped = Zlib.gzipSync(Buffer.alloc(40 * 1024 * 1024))
    handler = (_, response) => {
      response.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-encoding": "gzip"
      })
      response.end(zipped)
    }
    const response = await face.call("GET", "/zeros", undefined, {
      idleTimeout: limit ?? 100,
      responseType: "bytes"
    })
    expect(response.success).toBe(true)
    expect((response.data as Uint8Array).byteLength).toBe(40 * 1024 * 1024)
  })

  it("time the client holds the body back (a slow progress callback on a gzip body) is no silence", async () => {
    // some 200 KB of gzip on the wire: more than the client reads ahead before it pauses the socket
    const rows = Array.from({ length: 20_000 }, (_, id) => ({
      id,
      name: `user-${id}`,
      email: `user${id}@example.com`,
      score: (id * 7919) % 1000
    }))
    const zipped = Zlib.gzipSync(JSON.stringify(rows))
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
      response.end(zipped)
    }
    let calls = 0
    const response = await face.call("GET", "/rows", undefined, {
      idleTimeout: limit ?? 60,
      // a progress bar that takes its time: 10 ms of the event loop on each call
      onDownloadProgress: () => {
        calls++
        const until = Date.now() + 10
        while (Date.now() < until) {}
      }
    })
    expect(response.success).toBe(true)
    expect(response.data).toHaveLength(20_000)
    expect(calls).toBeGreaterThan(0)
  })

  it("a progress callback that holds the event loop longer than the limit, on a body that never stalls, is no silence", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      let sent = 0
      const timer = setInterval(() => {
        response.write("x".repeat(1024))
        if (++sent === 6) {
          clearInterval(timer)
          response.end()
        }
      }, 20)
    }
    let calls = 0
    const response = await face.call("GET", "/steady", undefined, {
      idleTimeout: 100,
      onDownloadProgress: () => {
        // the first call takes 250 ms of the event loop: the server's next pieces wait unread
        if (calls++ > 0) return
        const until = Date.now() + 250
        while (Date.now() < until) {}
      }
    })
    expect(response).toMatchObject({ success: true })
    expect(response.data).toHaveLength(6 * 1024)
  })

  it("a silent body times out even while the client keeps the event loop busy: one more wait per arrival, no more", async () => {
    stalling(200)
    // 80 ms of the client's own work at a time: a 100 ms limit comes 60 ms late, every time
    let busy = true
    const work = () => {
      if (!busy) return
      const until = Date.now() + 80
      while (Date.now() < until) {}
      setImmediate(work)
    }
    const started = Date.now()
    setImmediate(work)
    try {
      const response = await getStalled()
      expect(response.error).toMatch(IDLE_MESSAGE)
      // two waits and their lateness, not an endless run of them
      expect(Date.now() - started).toBeLessThan(2_000)
    } finally {
      busy = false
    }
  })

  it("an interim answer (103 Early Hints) is no answer: the timeout waits for the headers", async () => {
    handler = (_, response) => {
      response.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" })
      setTimeout(() => {
        response.writeHead(200, { "content-type": "text/plain" })
        response.end("after the hints")
      }, 300)
    }
    const response = await face.call("GET", "/hints", undefined, { idleTimeout: 100 })
    expect(response).toMatchObject({ success: true, data: "after the hints" })
  })

  it("stream: a failure's body read whole is watched too: TIMEOUT, not a call that never ends", async () => {
    const server = stalling(500)
    const read = await face.stream("/stall", { idleTimeout: 100 }, () => undefined, { timeout: 0 })
    expect(read.response).toMatchObject({ success: false, status: 0, code: "TIMEOUT" })
    expect(read.response.error).toMatch(IDLE_MESSAGE)
    await waitFor(() => server.closed, "the connection to close")
  })

  it("an idleTimeout that is no duration is INVALID_REQUEST, nothing sent", async () => {
    const before = received.length
    const response = await face.call("GET", "/x", undefined, { idleTimeout: -5 })
    expect(response).toMatchObject({ success: false, code: "INVALID_REQUEST" })
    expect(response.error).toMatch(/^options\.idleTimeout must be/)
    expect(received.length).toBe(before)
  })
})

describe.each(faces)("bytes as every runtime hands them over, $name", (face) => {
  // Node's undici and zlib make Buffers, whose String() decodes and whose slice() shares memory:
  // the same call answered a Buffer on Node and a Uint8Array in a browser, on Bun and Deno
  it("a body read as bytes, plain or gzip, and a stream's chunks are Uint8Array, not Buffer", async () => {
    for (const gzip of [false, true]) {
      handler = (_, response) => {
        response.writeHead(200, {
          "content-type": "application/octet-stream",
          ...(gzip && { "content-encoding": "gzip" })
        })
        response.end(gzip ? Zlib.gzipSync(BIG) : BIG)
      }
      const response = await face.call("GET", "/bytes", undefined, { responseType: "bytes" })
      expect(response.success).toBe(true)
      const data = response.data as Uint8Array
      expect(data.byteLength).toBe(BIG.byteLength)
      expect(data.constructor).toBe(Uint8Array)
      const kinds = new Set<unknown>()
      const read = await face.stream("/bytes", {}, (_, chunk) => kinds.add(chunk.constructor))
      expect(read.bytes).toBe(BIG.byteLength)
      expect([...kinds]).toEqual([Uint8Array])
    }
  })
})

describe.each(faces)("onUploadProgress, $name", (face) => {
  it("a large upload: its total is its length, the last call progress 1 (several growing calls where the transport streams it)", async () => {
    handler = (_, response) => response.end("ok")
    const body = new Uint8Array(1024 * 1024).fill(7)
    const { calls, callback } = recorder()
    const response = await face.call("POST", "/upload", body, { onUploadProgress: callback })
    expect(response.success).toBe(true)
    expect(received[0]?.bytes).toBe(body.byteLength)
    // sent with its length, never chunked
    expect(received[0]?.headers["content-length"]).toBe(String(body.byteLength))
    expect(received[0]?.headers["transfer-encoding"]).toBeUndefined()
    expectOrdered(calls)
    expect(calls.every((call) => call.total === body.byteLength)).toBe(true)
    expect(calls.at(-1)).toEqual({ loaded: body.byteLength, total: body.byteLength, progress: 1 })
    if (face.streamsUploads) expect(calls.length).toBeGreaterThan(4)
    else expect(calls).toHaveLength(1)
  })

  it.each([
    ["a string (its UTF-8 length)", "héllo wörld 😀"],
    ["a Uint8Array", new Uint8Array([1, 2, 3, 4, 5])],
    ["a JSON object", { name: "ünïcode", list: [1, 2, 3] }],
    ["URLSearchParams", new URLSearchParams({ q: "a b", page: "2" })],
    [
      "FormData",
      (() => {
        const form = new FormData()
        form.append("name", "report")
        form.append("file", new Blob(["x".repeat(5000)], { type: "text/plain" }), "r.txt")
        return form
      })()
    ]
  ])("%s: total is what the server receives", async (_, body) => {
    handler = (_, response) => response.end()
    const { calls, callback } = recorder()
    await face.call("PUT", "/kinds", body, { onUploadProgress: callback })
    const bytes = received[0]?.bytes
    expect(bytes).toBeGreaterThan(0)
    expect(calls.at(-1)).toEqual({ loaded: bytes, total: bytes, progress: 1 })
  })

  it("a request without a body makes no call; a throwing callback is ignored", async () => {
    handler = (_, response) => response.end("ok")
    const { calls, callback } = recorder()
    await face.call("GET", "/nobody", undefined, { onUploadProgress: callback })
    expect(calls).toEqual([])
    const response = await face.call("POST", "/throws", "body", {
      onUploadProgress: () => {
        throw new Error("the progress bar broke")
      }
    })
    expect(response).toMatchObject({ success: true, data: "ok" })
  })

  it("the client's callback serves every request; a request's own replaces it", async () => {
    handler = (_, response) => response.end()
    const client = recorder()
    const own = recorder()
    await face.call("POST", "/a", "abc", {}, { onUploadProgress: client.callback })
    await face.call(
      "POST",
      "/b",
      "abcd",
      { onUploadProgress: own.callback },
      { onUploadProgress: client.callback }
    )
    expect(client.calls).toEqual([{ loaded: 3, total: 3, progress: 1 }])
    expect(own.calls).toEqual([{ loaded: 4, total: 4, progress: 1 }])
  })
})

describe.each(faces)("progress of stream and sse, $name", (face) => {
  it("stream: progress follows what the caller reads, ending at the full length", async () => {
    handler = (_, response) => {
      response.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": BIG.byteLength
      })
      writeInParts(response, BIG, 4)
    }
    const { calls, callback } = recorder()
    let read = 0
    const behind: Array<number> = []
    const result = await face.stream("/download", { onDownloadProgress: callback }, (bytes) => {
      read += bytes
      // what was told never runs ahead of what the caller has read
      behind.push(read - (calls.at(-1)?.loaded ?? 0))
    })
    expect(result.bytes).toBe(BIG.byteLength)
    expect(behind.every((gap) => gap >= 0)).toBe(true)
    expectOrdered(calls)
    expect(calls.length).toBeGreaterThan(1)
    expect(calls.at(-1)).toEqual({ loaded: BIG.byteLength, total: BIG.byteLength, progress: 1 })
  })

  it("stream: a gzip body counts decoded bytes, no total; the client's callback serves it", async () => {
    const text = "stream ".repeat(30_000)
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
      response.end(Zlib.gzipSync(text))
    }
    const { calls, callback } = recorder()
    const result = await face.stream("/gz", {}, () => undefined, { onDownloadProgress: callback })
    expect(result.bytes).toBe(text.length)
    expect(calls.at(-1)).toEqual({ loaded: text.length })
  })

  it("stream: a hook that takes the body's reader is the hooks' failure, with progress as without", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      response.end("x".repeat(1000))
    }
    // the meter sits under the hooks: the hook takes the metered body's reader
    const peeking = {
      onResponse: (response: unknown) => {
        const data = (response as { data?: unknown }).data
        if (data instanceof ReadableStream) data.getReader()
      }
    }
    for (const config of [{ ...peeking }, { ...peeking, onDownloadProgress: () => undefined }]) {
      const result = await face.stream(
        "/peeked",
        { onDownloadProgress: () => undefined },
        () => undefined,
        config
      )
      expect(result.response).toMatchObject({ success: false, code: "INTERCEPTOR_ERROR" })
    }
  })

  it("sse: the events' bytes are counted as they are read; none after the stream is closed", async () => {
    const first = "id: 1\ndata: one\n\n"
    const second = "id: 2\ndata: two\n\n"
    let response: Http.ServerResponse | undefined
    handler = (_, res) => {
      response = res
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(first)
      setTimeout(() => res.write(second), 10)
    }
    const { calls, callback } = recorder()
    const events = await face.sse("/events", { onDownloadProgress: callback }, 2)
    expect(events.map((event) => event.data)).toEqual(["one", "two"])
    expect(calls.at(-1)?.loaded).toBe(first.length + second.length)
    expect(calls.every((call) => call.total === undefined)).toBe(true)
    const seen = calls.length
    response?.write("data: three\n\n")
    await settle()
    expect(calls.length).toBe(seen)
    response?.destroy()
  })
})

describe("a body that lies about its length", () => {
  it("a Content-Length longer than the body: the read fails, and the calls stay within [0, 1]", async () => {
    const liar = Net.createServer((socket) => {
      socket.once("data", () => {
        socket.write(
          "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: 1000\r\n\r\n"
        )
        socket.write("x".repeat(100))
        setTimeout(() => socket.destroy(), 20)
      })
    })
    await new Promise<void>((resolve) => liar.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(liar.address() as AddressInfo).port}`
    try {
      const configs: ReadonlyArray<SvcConfig> = [
        {},
        { fetch: (input, init) => globalThis.fetch(input, init) }
      ]
      for (const config of configs) {
        const { calls, callback } = recorder()
        const response = await createSvc(url, { retryAttempts: 0, ...config }).get("/cut", {
          onDownloadProgress: callback
        })
        expect(response).toMatchObject({ success: false, code: "NETWORK_ERROR" })
        expectOrdered(calls)
        expect(calls.every((call) => call.loaded <= 100 && call.total === 1000)).toBe(true)
      }
    } finally {
      await new Promise((resolve) => liar.close(resolve))
    }
  })

  it("a Content-Length shorter than the body a fetch hands over: progress never passes 1", async () => {
    handler = (_, response) => {
      response.writeHead(200, { "content-type": "application/octet-stream" })
      response.end(Buffer.alloc(3000, 1))
    }
    // a fetch (a proxy, a service worker) whose answer announces less than it carries
    const lying = async (input: string | URL | Request, init?: RequestInit) => {
      const real = await globalThis.fetch(input, init)
      return new Response(real.body, {
        status: real.status,
        headers: { "content-type": "application/octet-stream", "content-length": "1000" }
      })
    }
    const { calls, callback } = recorder()
    const response = await createSvc(origin, { fetch: lying }).get("/lies", {
      onDownloadProgress: callback
    })
    expect(response.success).toBe(true)
    expect((response.data as Uint8Array).byteLength).toBe(3000)
    expectOrdered(calls)
    expect(calls.at(-1)).toEqual({ loaded: 3000, total: 1000, progress: 1 })
  })

  it("a config callback that is not a function throws a TypeError naming it", () => {
    expect(() => createSvc(origin, { onUploadProgress: "yes" as unknown as () => void })).toThrow(
      /onUploadProgress must be a function/
    )
  })
})
