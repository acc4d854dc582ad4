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
      const headerAttributes = attributes.filter(([key]) => key.startsWith("http.request.header."))
      expect(headerAttributes.map(([key]) => key)).toContain("http.request.header.x-session-id")
      expect(headerAttributes.map(([key]) => key)).toContain("http.request.header.x-custom-sid")
      expect(JSON.stringify(attributes)).not.toContain("span-secret-1")
    })
  )
})
