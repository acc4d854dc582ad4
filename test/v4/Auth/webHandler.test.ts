/**
 * The guards in the web-handler form (`HttpRouter.toWebHandler`: Request in, Response out), as used
 * on runtimes with a fetch-style server (Bun, Deno, workers), on Effect 4.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import {
  AuthContext,
  CurrentUser,
  optionalAuth,
  requireAuth,
  SessionValidator
} from "../../../src/Auth/index.js"

const routes = Layer.mergeAll(
  HttpRouter.add(
    "GET",
    "/me",
    Effect.map(Effect.service(CurrentUser), (user) =>
      HttpServerResponse.jsonUnsafe({ id: user.user_id })
    ).pipe(requireAuth())
  ),
  HttpRouter.add(
    "GET",
    "/feed",
    Effect.map(Effect.service(AuthContext), (context) =>
      HttpServerResponse.jsonUnsafe(context)
    ).pipe(optionalAuth())
  )
)

const disposals: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const dispose of disposals) await dispose()
})

const handlerWith = (validator: Layer.Layer<SessionValidator>) => {
  const { handler, dispose } = HttpRouter.toWebHandler(
    routes.pipe(HttpRouter.provideRequest(validator)),
    {
      disableLogger: true
    }
  )
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

describe("web handler form (Effect 4)", () => {
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
