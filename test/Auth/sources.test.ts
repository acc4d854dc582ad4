/**
 * Where the session id comes from (SPEC 6.2, test/Auth/shared/sources.ts): header → cookie →
 * query, names configurable, query switchable off, empty = absent, malformed ids rejected without
 * asking the validator. Shared: run on both Effect lines (lineKit.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { CurrentUser, requireAuth } from "../../src/v3/Auth/index.js"
import {
  call,
  json,
  makeProbe,
  probeValidator,
  type Route,
  ServerLayer,
  serveRoutes
} from "./lineKit.js"
import { cases } from "./shared/sources.js"

const whoAmI = Effect.map(CurrentUser, (user) => json({ id: user.user_id }))

const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/me", handler: whoAmI.pipe(requireAuth()) },
  {
    method: "GET",
    path: "/custom",
    handler: whoAmI.pipe(requireAuth({ header: "X-Token", cookie: "sid", query: "token" }))
  },
  { method: "GET", path: "/no-query", handler: whoAmI.pipe(requireAuth({ query: false })) },
  { method: "GET", path: "/no-cookie", handler: whoAmI.pipe(requireAuth({ cookie: false })) }
]

describe("session id sources", () => {
  it.effect.each(cases)("$name", (testCase) =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutes(routes, probeValidator(probe))
      const reply = yield* call(testCase.path, { headers: testCase.headers ?? {} })
      expect(reply).toEqual({
        status: testCase.status,
        contentType: "application/json",
        // every answer of a guarded route, the guard's refusals included
        cacheControl: "no-store",
        body: testCase.body
      })
      expect(probe.calls).toBe(testCase.calls)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})
