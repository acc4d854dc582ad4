import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createSvc, SvcClient } from "../../src/v3/Client/index.js"
import { recordingTracer } from "../support/recordingTracer.js"
import { json, testServer } from "./server.js"

describe("session ids in spans", () => {
  it.scoped("the session header is redacted in client spans, whatever its name", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => json({ data: 1, success: true }))
      const attributes: Array<readonly [string, unknown]> = []
      const run = (sessionHeader?: string) =>
        SvcClient.pipe(
          Effect.flatMap((client) => client.get("/traced")),
          Effect.provide(
            SvcClient.layer(server.origin, {
              sessionId: "span-secret-1",
              ...(sessionHeader === undefined ? {} : { sessionHeader })
            })
          ),
          Effect.provide(NodeHttpClient.layerUndici),
          Effect.withTracer(recordingTracer(attributes))
        )
      yield* run()
      yield* run("X-Custom-Sid")
      expect(
        server.requests.map((r) => r.headers["x-session-id"] ?? r.headers["x-custom-sid"])
      ).toEqual(["span-secret-1", "span-secret-1"])
      // the call's span (one per call) records no header; the HttpClient makes no span of its own
      expect(attributes.filter(([key]) => key === "http.request.method")).toHaveLength(2)
      expect(attributes.filter(([key]) => key.startsWith("http.request.header."))).toEqual([])
      expect(JSON.stringify(attributes)).not.toContain("span-secret-1")
    })
  )
})

describe("URLs in a transport's error", () => {
  it("a fetch error that names the URL (Bun's path) reaches onError without its query or fragment", async () => {
    const errors: Array<unknown> = []
    // Bun's fetch rejects so: the URL it failed in `path`, query and fragment included
    const bunLike = (input: string | URL | Request) =>
      Promise.reject(
        Object.assign(new TypeError(`Unable to connect: ${String(input)}`), {
          code: "ECONNREFUSED",
          path: String(input)
        })
      )
    const response = await createSvc("http://127.0.0.1:9/api", {
      fetch: bunLike,
      retryAttempts: 0,
      onError: (error) => errors.push(error)
    }).get("/x?token=secret#frag")
    expect(response).toMatchObject({ success: false, code: "NETWORK_ERROR" })
    expect(errors).toHaveLength(1)
    const cause = (errors[0] as { cause?: { path?: string; message?: string; code?: string } })
      .cause
    expect(cause).toBeInstanceOf(TypeError)
    expect(cause).toMatchObject({
      code: "ECONNREFUSED",
      path: "http://127.0.0.1:9/api/x",
      message: "Unable to connect: http://127.0.0.1:9/api/x"
    })
    expect(JSON.stringify(errors[0])).not.toMatch(/secret|frag/)
    expect(String((cause as { stack?: string }).stack)).not.toMatch(/secret|frag/)
  })
})
