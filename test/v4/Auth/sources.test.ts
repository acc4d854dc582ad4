/**
 * Where the session id comes from (SPEC 6.2, test/Auth/shared/sources.ts): header → cookie →
 * query, names configurable, query switchable off, empty = absent, malformed ids rejected without
 * asking the validator. On Effect 4.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import { CurrentUser, requireAuth } from "../../../src/Auth/index.js"
import { cases } from "../../Auth/shared/sources.js"
import { call, makeProbe, probeValidator, ServerLayer, serveRoutes } from "./fixtures.js"

const whoAmI = Effect.map(Effect.service(CurrentUser), (user) =>
  HttpServerResponse.jsonUnsafe({ id: user.user_id })
)

const routes = Layer.mergeAll(
  HttpRouter.add("GET", "/me", whoAmI.pipe(requireAuth())),
  HttpRouter.add(
    "GET",
    "/custom",
    whoAmI.pipe(requireAuth({ header: "X-Token", cookie: "sid", query: "token" }))
  ),
  HttpRouter.add("GET", "/no-query", whoAmI.pipe(requireAuth({ query: false }))),
  HttpRouter.add("GET", "/no-cookie", whoAmI.pipe(requireAuth({ cookie: false })))
)

describe("session id sources (Effect 4)", () => {
  it.effect.each(cases)("$name", (testCase) =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutes(routes, probeValidator(probe))
      const reply = yield* call(testCase.path, { headers: testCase.headers ?? {} })
      expect(reply).toEqual({
        status: testCase.status,
        contentType: "application/json",
        body: testCase.body
      })
      expect(probe.calls).toBe(testCase.calls)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})
