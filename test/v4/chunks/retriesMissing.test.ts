/**
 * Effect 4 loads its retries on a request's first transient failure. When they cannot come (a
 * browser's chunk gone after a deploy), the request answers the failure that asked for them — the
 * server's 503 — on both faces, not the loader's error. A file of its own: the retries' module is
 * replaced for this file's worker alone.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, expect, it, vi } from "vitest"
import { createSvc, SvcClient } from "../../../src/Client/index.js"

vi.mock("../../../src/internal/retry.ts", () => {
  throw new TypeError("Failed to fetch dynamically imported module")
})

let server: Http.Server
let origin = ""
let requests = 0

beforeAll(async () => {
  server = Http.createServer((_, response) => {
    requests++
    response.writeHead(503, { "content-type": "application/json" })
    response.end(JSON.stringify({ error: "busy" }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

it("a 503 whose retries cannot be loaded is answered as the 503, once sent, on both faces", async () => {
  const config = { retryAttempts: 2 }
  requests = 0
  const facade = await createSvc(origin, config).get("/busy")
  expect(facade).toMatchObject({ success: false, status: 503, code: "HTTP_ERROR" })
  expect(requests).toBe(1)
  requests = 0
  const error = await Effect.runPromise(
    Effect.flip(
      Effect.flatMap(SvcClient, (client) => client.get("/busy")).pipe(
        Effect.provide(SvcClient.layerDefault(origin, config))
      )
    )
  )
  expect(error).toMatchObject({ _tag: "HttpError", status: 503, code: "HTTP_ERROR" })
  expect(requests).toBe(1)
})
