/**
 * A guarded handler without a `SessionValidator` (a cast got past the types): the request is
 * answered with the pinned 500 of an unavailable validator, and an error is logged that names the
 * missing layer and how to provide it. Shared: run on both Effect lines (lineKit.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { requireAuth, type SessionValidator } from "../../src/v3/Auth/index.js"
import { HttpServerRequest, HttpServerResponse, logfmtLines, requestOf, text } from "./lineKit.js"

const withoutValidator = (headers: Record<string, string>) => {
  const lines: Array<string> = []
  const guarded = requireAuth()(text("ok")) as Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    never,
    SessionValidator | HttpServerRequest.HttpServerRequest
  >
  return guarded.pipe(
    Effect.provideService(
      HttpServerRequest.HttpServerRequest,
      requestOf(new Request("http://localhost/x", { headers }))
    ),
    // the mistake under test: no SessionValidator layer
    (program) => program as Effect.Effect<HttpServerResponse.HttpServerResponse>,
    Effect.provide(logfmtLines(lines)),
    Effect.flatMap((response) =>
      Effect.promise(async () => {
        const web = HttpServerResponse.toWeb(response)
        return { status: web.status, body: await web.text(), lines }
      })
    )
  )
}

describe("a guard without a SessionValidator", () => {
  it.effect("answers the pinned 500 and logs an error naming the missing layer", () =>
    Effect.gen(function* () {
      const { status, body, lines } = yield* withoutValidator({ "x-session-id": "s-secret-1" })
      expect(status).toBe(500)
      expect(JSON.parse(body)).toEqual({ error: "Authentication service unavailable" })
      const errors = lines.filter((line) => /level=ERROR/.test(line))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toContain("No SessionValidator is provided")
      expect(errors[0]).toContain("SessionStore.validator")
      expect(lines.join("\n")).not.toContain("s-secret-1")
    })
  )

  it.effect("needs none for a request without an id: 401, nothing logged", () =>
    Effect.gen(function* () {
      const { status, body, lines } = yield* withoutValidator({})
      expect(status).toBe(401)
      expect(JSON.parse(body)).toEqual({ error: "Session ID required" })
      expect(lines).toEqual([])
    })
  )
})
