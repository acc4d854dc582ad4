/**
 * Every row of SPEC 6.3, against a real `@effect/platform-node` server on port 0.
 */
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  AuthContext,
  CurrentUser,
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType
} from "../../src/v3/Auth/index.js"
import { call, makeProbe, probeValidator, ServerLayer, serve } from "./fixtures.js"
import { rows } from "./shared/guards.js"

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
  Effect.map(CurrentUser, (user) => HttpServerResponse.unsafeJson({ route, id: user.user_id }))

const router = HttpRouter.empty.pipe(
  HttpRouter.get("/me", me.pipe(requireAuth())),
  HttpRouter.get("/feed", feed.pipe(optionalAuth())),
  HttpRouter.get("/admin", reached("admin").pipe(requireUserType(["admin", "ops"]))),
  HttpRouter.get("/admin-only", reached("admin-only").pipe(requireUserType("admin"))),
  HttpRouter.del("/posts/:id", reached("delete").pipe(requirePermission("posts:delete"))),
  HttpRouter.get(
    "/guest-then-type",
    reached("type").pipe(requireUserType(["user"]), optionalAuth())
  ),
  HttpRouter.get(
    "/guest-then-permission",
    reached("permission").pipe(requirePermission("posts:read"), optionalAuth())
  ),
  HttpRouter.get("/guest-then-auth", reached("auth").pipe(requireAuth(), optionalAuth()))
)

describe("guards, SPEC 6.3", () => {
  it.scoped.each(rows)("$guard: $condition → $status", (row) =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serve(HttpRouter.toHttpApp(router).pipe(Effect.flatten), probeValidator(probe))
      const reply = yield* call(row.path, {
        ...(row.method ? { method: row.method } : {}),
        headers: row.id === undefined ? {} : { "X-Session-Id": row.id }
      })
      expect(reply.status).toBe(row.status)
      expect(reply.body).toEqual(row.body)
      expect(reply.contentType).toBe("application/json")
      expect(probe.calls).toBe(row.calls)
    }).pipe(Effect.provide(ServerLayer))
  )
})
