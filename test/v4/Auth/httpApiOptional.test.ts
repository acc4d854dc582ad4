/**
 * `HttpApiAuth.Optional` on Effect 4 (which removed optional `HttpApi` middleware): guests and
 * users alike get an `AuthContext`, never a refusal.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { call, DOWN } from "./fixtures.js"
import { withServer } from "./httpApiLine.js"

describe("HttpApiAuth.Optional on a real server (Effect 4)", () => {
  it.effect("HttpApiAuth.Optional gives guests and users an AuthContext, never a refusal", () =>
    withServer((probe) =>
      Effect.gen(function* () {
        expect(yield* call("/hello")).toMatchObject({ status: 200, body: "hello, guest" })
        expect(yield* call("/hello", { headers: { "x-session-id": "nope" } })).toMatchObject({
          status: 200,
          body: "hello, guest"
        })
        expect(yield* call("/hello", { headers: { "x-session-id": DOWN } })).toMatchObject({
          status: 200,
          body: "hello, guest"
        })
        expect(yield* call("/hello", { headers: { cookie: "session_id=s-user" } })).toMatchObject({
          status: 200,
          body: "hello, u1"
        })
        expect(probe.calls).toBe(3)
      })
    )
  )
})
