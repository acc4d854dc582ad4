/**
 * `stream` reads a body as it arrives without holding it (SPEC 4.8): 256 MiB from a real
 * node:http server on 127.0.0.1 (in a child process), read to the end through the facade's web
 * `ReadableStream` and the Effect API's `Stream`, while the process's resident set size stays
 * within a bound far below the body's size. Shared by both Effect lines. Speed is bench/stream.ts's business (`npm run bench`):
 * nothing here is timed.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc, SvcClient } from "../../src/v3/Client/index.js"

const MiB = 2 ** 20
/** The body read through each face. */
const BODY = 256 * MiB
/**
 * The most the resident set may grow while the body is read: half the body, so that holding it
 * fails. Reading it grows the resident set by 20–65 MiB here, and undici.request alone by 20–50
 * MiB in bench/stream.ts (socket buffers the allocator keeps, not the JavaScript heap, which stays
 * flat): the 64 MiB goal is the benchmark's, measured in a process of its own.
 */
const BOUND = 128 * MiB

/**
 * The server, in a process of its own so that only the client's memory is measured: `GET
 * /bytes/<n>` answers `n` bytes, one pre-allocated 64 KiB chunk written again and again as the
 * socket takes it. It sends its port over IPC and ends when its parent disconnects.
 */
const SERVER = `
const chunk = Buffer.alloc(64 * 1024, 0x61)
const server = require("node:http").createServer((request, response) => {
  let left = Number(request.url.split("/")[2])
  response.writeHead(200, { "content-type": "application/octet-stream", "content-length": left })
  const write = () => {
    while (left > 0) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left)
      left -= piece.length
      if (!response.write(piece)) return void response.once("drain", write)
    }
    response.end()
  }
  write()
})
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }))
process.on("disconnect", () => process.exit(0))
`

let child: ChildProcess
let origin = ""

beforeAll(async () => {
  child = spawn(process.execPath, ["-e", SERVER], {
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once("message", (message) => resolve(message as { port: number }))
    child.once("error", reject)
  })
  origin = `http://127.0.0.1:${port}`
})

afterAll(() => {
  child.disconnect()
})

/** What a read saw: its bytes and the resident set's peak while it read (sampled at every chunk). */
interface Read {
  readonly bytes: number
  readonly peak: number
}

/** Reads `/bytes/<size>` through a face, sampling the resident set size at every chunk. */
type Reader = (size: number) => Promise<Read>

const facade: Reader = async (size) => {
  const response = await createSvc(origin).stream(`/bytes/${size}`)
  if (!response.success) throw new Error(response.error)
  const reader = response.data.getReader()
  let bytes = 0
  let peak = process.memoryUsage.rss()
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    bytes += chunk.value.byteLength
    peak = Math.max(peak, process.memoryUsage.rss())
  }
  return { bytes, peak }
}

const effectApi: Reader = (size) => {
  let bytes = 0
  let peak = process.memoryUsage.rss()
  return Effect.runPromise(
    Effect.flatMap(SvcClient, (client) =>
      Stream.runForEach(client.stream(`/bytes/${size}`), (chunk) =>
        Effect.sync(() => {
          bytes += chunk.byteLength
          peak = Math.max(peak, process.memoryUsage.rss())
        })
      )
    ).pipe(
      Effect.provide(SvcClient.layerDefault(origin)),
      Effect.map(() => ({ bytes, peak }))
    )
  )
}

describe("stream reads a large body in bounded memory", () => {
  it.each([
    ["the facade's ReadableStream", facade],
    ["the Effect API's Stream", effectApi]
  ] as const)(
    "%s: 256 MiB read to the end, the resident set within 128 MiB of before",
    async (_, read) => {
      // warm-up: the stream code, undici and the JIT loaded, so that the baseline is the idle process
      expect((await read(16 * MiB)).bytes).toBe(16 * MiB)
      const before = process.memoryUsage.rss()
      const { bytes, peak } = await read(BODY)
      expect(bytes).toBe(BODY)
      const growth = peak - before
      expect(growth, `grew ${(growth / MiB).toFixed(1)} MiB`).toBeLessThan(BOUND)
    }
  )
})
