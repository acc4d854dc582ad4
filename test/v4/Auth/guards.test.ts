/**
 * Every row of SPEC 6.3 (test/Auth/shared/guards.ts), against a real `@effect/platform-node`
 * server on port 0, with the guards piped onto `effect/http` `HttpRouter` routes.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import * as Layer from "effect/Layer"
import {
  AuthContext,
  CurrentUser,
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType
} from "../../../src/Auth/index.js"
import { rows } from "../../Auth/shared/guards.js"
import { call, makeProbe, probeValidator, ServerLayer, serveRoutes } from "./fixtures.js"

const me = Effect.gen(function* () {
  const user = yield* CurrentUser
  return yield* HttpServerResponse.json({ route: "me", id: user.user_id, session: user.session })
})

const feed = Effect.gen(function* () {
  const context = yield* AuthContext
  return yield* HttpServerResponse.json({
    route: "feed",
    guest: context.is_guest,
    id: context.is_guest ? null : context.user_id
  })
})

const reached = (route: string) =>
  Effect.map(Effect.service(CurrentUser), (user) =>
    HttpServerResponse.jsonUnsafe({ route, id: user.user_id })
  )

const routes = Layer.mergeAll(
  HttpRouter.add("GET", "/me", me.pipe(requireAuth())),
  HttpRouter.add("GET", "/feed", feed.pipe(optionalAuth())),
  HttpRouter.add("GET", "/admin", reached("admin").pipe(requireUserType(["admin", "ops"]))),
  HttpRouter.add("GET", "/admin-only", reached("admin-only").pipe(requireUserType("admin"))),
  HttpRouter.add("DELETE", "/posts/:id", reached("delete").pipe(requirePermission("posts:delete"))),
  HttpRouter.add(
    "GET",
    "/guest-then-type",
    reached("type").pipe(requireUserType(["user"]), optionalAuth())
  ),
  HttpRouter.add(
    "GET",
    "/guest-then-permission",
    reached("permission").pipe(requirePermission("posts:read"), optionalAuth())
  ),
  HttpRouter.add("GET", "/guest-then-auth", reached("auth").pipe(requireAuth(), optionalAuth()))
)

describe("guards, SPEC 6.3 (Effect 4)", () => {
  it.effect.each(rows)("$guard: $condition → $status", (row) =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutes(routes, probeValidator(probe))
      const reply = yield* call(row.path, {
        ...(row.method ? { method: row.method } : {}),
        headers: row.id === undefined ? {} : { "X-Session-Id": row.id }
      })
      expect(reply.status).toBe(row.status)
      expect(reply.body).toEqual(row.body)
      expect(reply.contentType).toBe("application/json")
      expect(probe.calls).toBe(row.calls)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})
