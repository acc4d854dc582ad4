/**
 * `layerRedactSessionHeader` on Effect 3: `@effect/platform`'s server spans record the session
 * header as `<redacted>` with it (and the id without it).
 */
import { HttpClient, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { layerRedactSessionHeader, requireAuth, SessionValidator } from "../../src/v3/Auth/index.js"
import { recordingTracer } from "../support/recordingTracer.js"

const SECRET = "secret-session-4242"

describe("layerRedactSessionHeader", () => {
  /** The request span's attributes of a real server, with or without the layer. */
  const spanAttributes = (redact: boolean, header?: string) =>
    Effect.gen(function* () {
      const attributes: Array<readonly [string, unknown]> = []
      const app = HttpServerResponse.text("ok").pipe(
        requireAuth(header === undefined ? {} : { header })
      )
      const serving = HttpServer.serve(app).pipe(
        Layer.provide(
          redact ? layerRedactSessionHeader(header === undefined ? {} : { header }) : Layer.empty
        ),
        Layer.provide(SessionValidator.memory({ [SECRET]: { user_id: "u1" } })),
        Layer.provide(Layer.setTracer(recordingTracer(attributes))),
        Layer.provideMerge(NodeHttpServer.layerTest)
      )
      const status = yield* Effect.gen(function* () {
        const client = yield* HttpClient.HttpClient
        const response = yield* client.get("/x", {
          headers: { [header ?? "X-Session-Id"]: SECRET }
        })
        return response.status
      }).pipe(Effect.provide(serving), Effect.scoped)
      expect(status).toBe(200)
      return attributes
    })

  it.effect("server spans record the session header as <redacted>", () =>
    Effect.gen(function* () {
      const redacted = yield* spanAttributes(true)
      expect(redacted).toContainEqual(["http.request.header.x-session-id", "<redacted>"])
      expect(JSON.stringify(redacted)).not.toContain(SECRET)
      const named = yield* spanAttributes(true, "X-Auth")
      expect(named).toContainEqual(["http.request.header.x-auth", "<redacted>"])
      expect(JSON.stringify(named)).not.toContain(SECRET)
      // without it, @effect/platform records the id: what the layer is for
      expect(JSON.stringify(yield* spanAttributes(false))).toContain(SECRET)
    })
  )

  it("rejects a header name that is not a non-empty string", () => {
    expect(() => layerRedactSessionHeader({ header: "" })).toThrow(/options.header/)
  })
})
