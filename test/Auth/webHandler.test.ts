/**
 * The guards in the web-handler form (Request in, Response out: `HttpApp.toWebHandler` on Effect 3,
 * `HttpRouter.toWebHandler` on Effect 4), as used on runtimes with a fetch-style server (Bun, Deno,
 * workers). Shared: run on both Effect lines (lineKit.ts).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import {
  AuthContext,
  CurrentUser,
  optionalAuth,
  requireAuth,
  SessionValidator
} from "../../src/v3/Auth/index.js"
import { json, type Route, routesWebHandler } from "./lineKit.js"

const routes: ReadonlyArray<Route> = [
  {
    method: "GET",
    path: "/me",
    handler: Effect.map(CurrentUser, (user) => json({ id: user.user_id })).pipe(requireAuth())
  },
  {
    method: "GET",
    path: "/feed",
    handler: Effect.map(AuthContext, (context) => json(context)).pipe(optionalAuth())
  }
]

const disposals: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const dispose of disposals) await dispose()
})

const handlerWith = (validator: Layer.Layer<SessionValidator>) => {
  const { handler, dispose } = routesWebHandler(routes, validator)
  disposals.push(dispose)
  return handler
}

const fetchJson = async (
  handler: ReturnType<typeof handlerWith>,
  path: string,
  headers: Record<string, string> = {}
) => {
  const response = await handler(new Request(`http://localhost${path}`, { headers }))
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: (await response.json()) as unknown
  }
}

describe("web handler form", () => {
  const handler = handlerWith(
    SessionValidator.memory({ "s-1": { user_id: "u1", user_type: "user" } })
  )

  it("requireAuth: valid, missing, invalid", async () => {
    expect(await fetchJson(handler, "/me", { "X-Session-Id": "s-1" })).toEqual({
      status: 200,
      type: "application/json",
      body: { id: "u1" }
    })
    expect(await fetchJson(handler, "/me")).toEqual({
      status: 401,
      type: "application/json",
      body: { error: "Session ID required" }
    })
    expect(await fetchJson(handler, "/me?session_id=s-2")).toEqual({
      status: 401,
      type: "application/json",
      body: { error: "Invalid session" }
    })
  })

  it("optionalAuth: the user or a guest", async () => {
    expect((await fetchJson(handler, "/feed", { Cookie: "session_id=s-1" })).body).toEqual({
      user_id: "u1",
      session: { user_id: "u1", user_type: "user" },
      // the id the request presented, redacted in the JSON
      session_id: "<redacted>",
      is_guest: false
    })
    expect((await fetchJson(handler, "/feed")).body).toEqual({ is_guest: true })
  })

  it("a validator that throws instead of failing is unavailable (500), a guest for optionalAuth", async () => {
    const throwing = handlerWith(
      Layer.succeed(SessionValidator, {
        validate: () => {
          throw new Error("not an Effect")
        }
      })
    )
    expect(await fetchJson(throwing, "/me", { "X-Session-Id": "s-1" })).toEqual({
      status: 500,
      type: "application/json",
      body: { error: "Authentication service unavailable" }
    })
    expect((await fetchJson(throwing, "/feed", { "X-Session-Id": "s-1" })).body).toEqual({
      is_guest: true
    })
  })
})
