/**
 * The guards in the web-handler form (`HttpApp.toWebHandler`: Request in, Response out), as used on
 * runtimes with a fetch-style server (Bun, Deno, workers).
 */
import { HttpApp, HttpRouter, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import {
  AuthContext,
  CurrentUser,
  optionalAuth,
  requireAuth,
  SessionValidator
} from "../../src/v3/Auth/index.js"

const router = HttpRouter.empty.pipe(
  HttpRouter.get(
    "/me",
    Effect.map(CurrentUser, (user) => HttpServerResponse.unsafeJson({ id: user.user_id })).pipe(
      requireAuth()
    )
  ),
  HttpRouter.get(
    "/feed",
    Effect.map(AuthContext, (context) => HttpServerResponse.unsafeJson(context)).pipe(
      optionalAuth()
    )
  )
)

const handlerWith = (validator: Layer.Layer<SessionValidator>) =>
  HttpApp.toWebHandler(Effect.flatten(HttpRouter.toHttpApp(router)).pipe(Effect.provide(validator)))

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
