/**
 * A guard in a router mounted under a prefix sees another view of the request (its URL sliced):
 * the user an outer guard made for the request is still this request's, and the validator is asked
 * once (SPEC 6.1). Effect 3's `HttpRouter.mount`.
 */
import { HttpApp, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import {
  CurrentUser,
  requireAuth,
  requirePermission,
  SessionValidator
} from "../../src/v3/Auth/index.js"
import { makeProbe, probeService } from "./shared/probe.js"

describe("a guard in a mounted router", () => {
  it.effect(
    "finds the outer guard's user for the same request, and the validator is asked once",
    () =>
      Effect.gen(function* () {
        const probe = yield* makeProbe
        const views = new Set<unknown>()
        const inner = HttpRouter.empty.pipe(
          HttpRouter.get(
            "/me",
            Effect.gen(function* () {
              views.add(yield* HttpServerRequest.HttpServerRequest)
              const user = yield* CurrentUser
              return HttpServerResponse.text(user.user_id)
            }).pipe(requirePermission("posts:read"))
          )
        )
        const app = HttpRouter.empty.pipe(
          HttpRouter.mount("/api", inner),
          (router) =>
            Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
              views.add(request)
              return router
            }),
          requireAuth()
        )
        const handler = HttpApp.toWebHandlerLayer(
          app,
          Layer.succeed(SessionValidator, probeService(probe))
        )
        const response = yield* Effect.promise(() =>
          handler.handler(
            new Request("http://localhost/api/me", { headers: { "x-session-id": "s-user" } })
          )
        )
        expect(response.status).toBe(200)
        expect(yield* Effect.promise(() => response.text())).toBe("u1")
        // two views of one request, validated once
        expect(views.size).toBe(2)
        expect(probe.calls).toBe(1)
        yield* Effect.promise(() => handler.dispose())
      })
  )
})
