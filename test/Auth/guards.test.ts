/**
 * Every row of SPEC 6.3 (test/Auth/shared/guards.ts), against a real `@effect/platform-node`
 * server on port 0, with the guards piped onto the line's router's routes. Shared: run on both
 * Effect lines (lineKit.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import {
  AuthContext,
  CurrentUser,
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType
} from "../../src/v3/Auth/index.js"
import {
  call,
  HttpServerResponse,
  json,
  makeProbe,
  probeValidator,
  type Route,
  ServerLayer,
  serveRoutes
} from "./lineKit.js"
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
  Effect.map(CurrentUser, (user) => json({ route, id: user.user_id }))

const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/me", handler: me.pipe(requireAuth()) },
  { method: "GET", path: "/feed", handler: feed.pipe(optionalAuth()) },
  {
    method: "GET",
    path: "/admin",
    handler: reached("admin").pipe(requireUserType(["admin", "ops"]))
  },
  {
    method: "GET",
    path: "/admin-only",
    handler: reached("admin-only").pipe(requireUserType("admin"))
  },
  {
    method: "DELETE",
    path: "/posts/:id",
    handler: reached("delete").pipe(requirePermission("posts:delete"))
  },
  {
    method: "GET",
    path: "/guest-then-type",
    handler: reached("type").pipe(requireUserType(["user"]), optionalAuth())
  },
  {
    method: "GET",
    path: "/guest-then-permission",
    handler: reached("permission").pipe(requirePermission("posts:read"), optionalAuth())
  },
  {
    method: "GET",
    path: "/guest-then-auth",
    handler: reached("auth").pipe(requireAuth(), optionalAuth())
  }
]

/**
 * A route that runs guarded steps inside its own handler, then looks for the guard's services
 * after them: after a step that succeeded, one that failed and one that died.
 */
const afterGuards = Effect.gen(function* () {
  const inside = yield* Effect.exit(reached("inside").pipe(requireAuth()))
  yield* Effect.exit(Effect.fail("refused").pipe(requireAuth()))
  yield* Effect.exit(Effect.die(new Error("boom")).pipe(requireUserType("user")))
  const user = yield* Effect.serviceOption(CurrentUser)
  const context = yield* Effect.serviceOption(AuthContext)
  return json({
    inside: inside._tag,
    userAfter: Option.isSome(user),
    contextAfter: Option.isSome(context)
  })
})

describe("guards, SPEC 6.3", () => {
  it.effect("provide the user to what they wrap only, whatever its exit", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutes(
        [{ method: "GET", path: "/after", handler: afterGuards }],
        probeValidator(probe)
      )
      const reply = yield* call("/after", { headers: { "X-Session-Id": "s-user" } })
      expect([reply.status, reply.body]).toEqual([
        200,
        { inside: "Success", userAfter: false, contextAfter: false }
      ])
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )

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
