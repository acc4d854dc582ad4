import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { SvcClient } from "../../src/v3/Client/index.js"
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
