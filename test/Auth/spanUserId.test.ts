/**
 * `spanUserId`: the guards put the authenticated user's `user_id` on the current span only when the
 * app opts in (it is personal data), and never the session id. Shared: run on both Effect lines
 * (lineKit.ts), for each guard over a handler that runs inside the request's span.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType,
  SessionValidator
} from "../../src/v3/Auth/index.js"
import { HttpServerRequest, recordingTracer, requestOf, text } from "./lineKit.js"

const SECRET = "s-secret-session-id"
const validator = SessionValidator.memory({
  [SECRET]: { user_id: "u-42", user_type: "admin", permissions: ["posts:delete"] }
})

const guards = [
  ["requireAuth", requireAuth],
  ["optionalAuth", optionalAuth],
  ["requireUserType", (options?: { spanUserId?: boolean }) => requireUserType("admin", options)],
  [
    "requirePermission",
    (options?: { spanUserId?: boolean }) => requirePermission("posts:delete", options)
  ]
] as const

/** What the request's span records when `guard` lets it through with the session. */
const recorded = (
  guard: (typeof guards)[number][1],
  options: { spanUserId?: boolean } | undefined
) =>
  Effect.gen(function* () {
    const attributes: Array<readonly [string, unknown]> = []
    const request = requestOf(
      new Request("http://localhost/x", { headers: { "x-session-id": SECRET } })
    )
    const response = yield* text("ok").pipe(
      guard(options),
      Effect.provideService(HttpServerRequest.HttpServerRequest, request),
      Effect.provide(validator),
      Effect.withSpan("request"),
      Effect.withTracer(recordingTracer(attributes))
    )
    return { status: response.status, attributes }
  })

describe("spanUserId", () => {
  it.effect.each(guards)("%s: the user's id on the span only when asked for", ([, guard]) =>
    Effect.gen(function* () {
      const asked = yield* recorded(guard, { spanUserId: true })
      expect(asked.status).toBe(200)
      expect(asked.attributes).toContainEqual(["user.id", "u-42"])
      expect(JSON.stringify(asked.attributes)).not.toContain(SECRET)
      for (const options of [undefined, { spanUserId: false }]) {
        const quiet = yield* recorded(guard, options)
        expect(quiet.status).toBe(200)
        expect(quiet.attributes.filter(([key]) => key === "user.id")).toEqual([])
        expect(JSON.stringify(quiet.attributes)).not.toContain(SECRET)
      }
    })
  )

  it("a value that is not a boolean is refused when the guard is made", () => {
    expect(() => requireAuth({ spanUserId: "yes" as unknown as boolean })).toThrow(
      'requireAuth: options.spanUserId must be a boolean, got "yes"'
    )
  })
})
