/**
 * A `fetch` without response streams, as React Native's is (the whatwg-fetch polyfill over XHR):
 * its `Response` has no `body` at all and gives the body whole (`arrayBuffer()`). Every call reads
 * it so, on both faces: a request's JSON, a `stream`'s bytes, an `sse` call's events, download
 * progress. React Native cannot run here: the fetch below is Node's own, its answer handed on as
 * that polyfill's `Response` is shaped, against a real server.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { afterAll, beforeAll } from "vitest"
import { createSvc, SvcClient } from "../../src/v3/Client/index.js"
import { startServer, type TestServer } from "./server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer((request) =>
    request.path === "/bytes"
      ? { headers: { "content-type": "application/octet-stream" }, body: "hello bytes" }
      : request.path === "/events"
        ? {
            headers: { "content-type": "text/event-stream" },
            body: "id: 1\ndata: a\n\ndata: b\n\n"
          }
        : { body: { data: { ok: 1 } } }
  )
})
afterAll(() => server.close())

/** A `Response` as whatwg-fetch makes it: no `body`; the whole body from `arrayBuffer()`, once. */
const withoutStreams = async (input: RequestInfo | URL, init?: RequestInit) => {
  const response = await fetch(input, init)
  const bytes = await response.arrayBuffer()
  let used = false
  const whole = async () => {
    if (used) throw new TypeError("Already read")
    used = true
    return bytes
  }
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    url: response.url,
    type: "default",
    ok: response.ok,
    redirected: false,
    body: undefined,
    arrayBuffer: whole,
    text: async () => new TextDecoder().decode(await whole())
  } as unknown as Response
}

const config = { fetch: withoutStreams as typeof fetch, retryAttempts: 0 }

describe("a fetch without response streams (React Native's)", () => {
  it("the facade reads a request's JSON, a stream's bytes and an sse call's events, with progress", async () => {
    const errors: Array<Error> = []
    const svc = createSvc(server.origin, { ...config, onError: (error) => void errors.push(error) })
    expect(await svc.get("/json")).toMatchObject({ success: true, data: { ok: 1 } })
    const progress: Array<number> = []
    const bytes = await svc.stream("/bytes", {
      onDownloadProgress: ({ loaded }) => void progress.push(loaded)
    })
    if (!bytes.success) throw new Error(bytes.error)
    let text = ""
    for await (const chunk of bytes.data as unknown as AsyncIterable<Uint8Array>) {
      text += new TextDecoder().decode(chunk)
    }
    expect(text).toBe("hello bytes")
    expect(progress.at(-1)).toBe(11)
    const before = server.requests.length
    const events = await svc.sse("/events", { reconnect: false })
    if (!events.success) throw new Error(events.error)
    const read: Array<string> = []
    for await (const event of events.data) read.push(`${event.id}:${event.data}`)
    expect(read).toEqual(["1:a", "1:b"])
    expect(server.requests.length - before).toBe(1)
    expect(errors).toEqual([])
  })

  it.effect("the Effect API reads a stream's bytes and an sse call's events", () =>
    Effect.gen(function* () {
      const client = yield* SvcClient
      const chunks = yield* Stream.runCollect(client.stream("/bytes"))
      const text = [...chunks].map((chunk) => new TextDecoder().decode(chunk)).join("")
      expect(text).toBe("hello bytes")
      const events = yield* Stream.runCollect(client.sse("/events", { reconnect: false }))
      expect([...events].map((event) => event.data)).toEqual(["a", "b"])
    }).pipe(Effect.provide(SvcClient.layerDefault(server.origin, config)))
  )
})
