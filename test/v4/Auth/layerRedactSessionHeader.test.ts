/**
 * `layerRedactSessionHeader` on Effect 4: `effect/http`'s server spans record the session header
 * as `<redacted>` with it, once the application captures request headers.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { HttpClient, HttpMiddleware, HttpServer, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import * as Tracer from "effect/Tracer"
import { layerRedactSessionHeader, requireAuth, SessionValidator } from "../../../src/Auth/index.js"
import { recordingTracer } from "./recordingTracer.js"

const SECRET = "secret-session-4242"

describe("layerRedactSessionHeader (Effect 4)", () => {
  /**
   * The request span's attributes of a real server, with or without the layer. Effect 4 records
   * request headers in server spans only when the application opts in (`captureHeaders`, through
   * `HttpMiddleware.TracerHeaderFilter`).
   */
  const spanAttributes = (redact: boolean, header?: string, captureHeaders = true) =>
    Effect.gen(function* () {
      const attributes: Array<readonly [string, unknown]> = []
      const app = Effect.succeed(HttpServerResponse.text("ok")).pipe(
        requireAuth(header === undefined ? {} : { header })
      )
      const serving = HttpServer.serve(app).pipe(
        Layer.provide(
          redact ? layerRedactSessionHeader(header === undefined ? {} : { header }) : Layer.empty
        ),
        Layer.provide(SessionValidator.memory({ [SECRET]: { user_id: "u1" } })),
        Layer.provide(Layer.succeed(Tracer.Tracer, recordingTracer(attributes))),
        Layer.provide(
          captureHeaders
            ? Layer.succeed(HttpMiddleware.TracerHeaderFilter, () => true)
            : Layer.empty
        ),
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
      // without it, effect/http records the id once headers are captured: what the layer is for
      expect(JSON.stringify(yield* spanAttributes(false))).toContain(SECRET)
      // by default Effect 4 captures no header: the id stays out with or without the layer
      const uncaptured = yield* spanAttributes(false, undefined, false)
      expect(uncaptured.map(([key]) => key)).toContain("http.request.method")
      expect(JSON.stringify(uncaptured)).not.toContain(SECRET)
    })
  )

  it("rejects a header name that is not a non-empty string", () => {
    expect(() => layerRedactSessionHeader({ header: "" })).toThrow(/options.header/)
  })
})
