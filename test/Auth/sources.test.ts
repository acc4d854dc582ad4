/**
 * Where the session id comes from (SPEC 6.2): header → cookie → query, names configurable, query
 * switchable off, empty = absent, malformed ids rejected without asking the validator.
 */
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { CurrentUser, requireAuth } from "../../src/v3/Auth/index.js"
import { call, makeProbe, probeValidator, ServerLayer, serve } from "./fixtures.js"
import { cases } from "./shared/sources.js"

const whoAmI = Effect.map(CurrentUser, (user) =>
  HttpServerResponse.unsafeJson({ id: user.user_id })
)

const app = HttpRouter.empty.pipe(
  HttpRouter.get("/me", whoAmI.pipe(requireAuth())),
  HttpRouter.get(
    "/custom",
    whoAmI.pipe(requireAuth({ header: "X-Token", cookie: "sid", query: "token" }))
  ),
  HttpRouter.get("/no-query", whoAmI.pipe(requireAuth({ query: false }))),
  HttpRouter.get("/no-cookie", whoAmI.pipe(requireAuth({ cookie: false }))),
  HttpRouter.toHttpApp,
  Effect.flatten
)

describe("session id sources", () => {
  it.scoped.each(cases)("$name", (testCase) =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serve(app, probeValidator(probe))
      const reply = yield* call(testCase.path, { headers: testCase.headers ?? {} })
      expect(reply).toEqual({
        status: testCase.status,
        contentType: "application/json",
        body: testCase.body
      })
      expect(probe.calls).toBe(testCase.calls)
    }).pipe(Effect.provide(ServerLayer))
  )
})
