import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Tracer from "effect/Tracer"
import { SvcClient } from "../../src/Client/index.js"
import { json, testServer } from "./server.js"

/** A tracer that records every span attribute. */
const recordingTracer = (attributes: Array<readonly [string, unknown]>) =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind) =>
      ({
        _tag: "Span",
        name,
        spanId: "span",
        traceId: "trace",
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes: new Map(),
        links: [...links],
        sampled: true,
        kind,
        end: () => undefined,
        attribute: (key: string, value: unknown) => {
          attributes.push([key, value])
        },
        event: () => undefined,
        addLinks: () => undefined
      }) as unknown as Tracer.Span,
    context: (f) => f()
  })

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
