/**
 * The server of the stream benchmarks (bench/stream.ts, the end-to-end rows of bench/sse.ts), in
 * its own process: it sends its port to the parent over IPC and stops when the parent disconnects.
 *
 * - `GET /bytes/<n>`: `n` bytes of `application/octet-stream` with their `Content-Length`, one
 *   pre-allocated 64 KiB chunk written again and again as fast as the socket takes it.
 * - `GET /events/<name>`: one of the bodies of bench/sseBodies.ts as `text/event-stream` (chunked,
 *   in writes of 16 KiB), the same bytes on every request.
 */
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { aiAnswer, english, feed, french } from "./sseBodies.js"

const CHUNK = Buffer.alloc(64 * 1024)
for (let i = 0; i < CHUNK.length; i++) CHUNK[i] = (i * 31 + 7) & 0xff

const encoder = new TextEncoder()
export const EVENT_BODIES: Record<string, { readonly bytes: Uint8Array; readonly events: number }> =
  {
    english: { bytes: encoder.encode(aiAnswer(10_000, english)), events: 10_001 },
    french: { bytes: encoder.encode(aiAnswer(10_000, french)), events: 10_001 },
    feed: { bytes: encoder.encode(feed(500, 4096)), events: 500 }
  }

/** Writes `size` bytes of {@link CHUNK}, waiting for the socket to drain. */
const sendBytes = (response: ServerResponse, size: number) => {
  let left = size
  const write = () => {
    while (left > 0) {
      const piece = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left)
      left -= piece.length
      if (!response.write(piece)) {
        response.once("drain", write)
        return
      }
    }
    response.end()
  }
  write()
}

const sendEvents = (response: ServerResponse, bytes: Uint8Array) => {
  const PIECE = 16 * 1024
  let at = 0
  const write = () => {
    while (at < bytes.length) {
      const piece = bytes.subarray(at, at + PIECE)
      at += piece.length
      if (!response.write(piece)) {
        response.once("drain", write)
        return
      }
    }
    response.end()
  }
  write()
}

const server = createServer((request, response) => {
  const [, kind, arg] = (request.url ?? "").split("/")
  if (kind === "bytes" && /^\d+$/.test(arg ?? "")) {
    const size = Number(arg)
    response.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": size
    })
    return sendBytes(response, size)
  }
  const body = kind === "events" && arg !== undefined ? EVENT_BODIES[arg] : undefined
  if (body !== undefined) {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" })
    return sendEvents(response, body.bytes)
  }
  response.writeHead(404).end()
})
server.keepAliveTimeout = 60_000

if (process.send !== undefined) {
  server.listen(0, "127.0.0.1", () => {
    process.send?.({ port: (server.address() as AddressInfo).port })
  })
  process.on("disconnect", () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
}
