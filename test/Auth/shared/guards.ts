/**
 * Every row of SPEC 6.3 as a request to a router with these routes, on both Effect lines:
 * `/me` requireAuth, `/feed` optionalAuth, `/admin` requireUserType(["admin", "ops"]),
 * `/admin-only` requireUserType("admin"), `DELETE /posts/:id` requirePermission("posts:delete"),
 * `/guest-then-type`, `/guest-then-permission` and `/guest-then-auth` those guards inside
 * optionalAuth. The handlers answer `{ route, id }` (`/me` adds `session`, `/feed` `guest`).
 */
import { BOOM, DOWN } from "./sessions.js"

export interface Row {
  readonly guard: string
  readonly condition: string
  readonly path: string
  readonly method?: "DELETE"
  readonly id?: string
  readonly status: number
  readonly body: unknown
  /** Validator calls the request must cost. */
  readonly calls: number
}

const unavailable = { error: "Authentication service unavailable" }

export const rows: ReadonlyArray<Row> = [
  // requireAuth
  {
    guard: "requireAuth",
    condition: "no session id",
    path: "/me",
    status: 401,
    body: { error: "Session ID required" },
    calls: 0
  },
  {
    guard: "requireAuth",
    condition: "unknown id",
    path: "/me",
    id: "nope",
    status: 401,
    body: { error: "Invalid session" },
    calls: 1
  },
  {
    guard: "requireAuth",
    condition: "validator fails",
    path: "/me",
    id: DOWN,
    status: 500,
    body: unavailable,
    calls: 1
  },
  {
    guard: "requireAuth",
    condition: "validator dies",
    path: "/me",
    id: BOOM,
    status: 500,
    body: unavailable,
    calls: 1
  },
  {
    guard: "requireAuth",
    condition: "valid id, extra session fields kept",
    path: "/me",
    id: "s-user",
    status: 200,
    body: {
      route: "me",
      id: "u1",
      session: {
        user_id: "u1",
        email: "u1@example.com",
        user_type: "user",
        permissions: ["posts:read"],
        team: "core"
      }
    },
    calls: 1
  },
  // optionalAuth
  {
    guard: "optionalAuth",
    condition: "no session id",
    path: "/feed",
    status: 200,
    body: { route: "feed", guest: true, id: null },
    calls: 0
  },
  {
    guard: "optionalAuth",
    condition: "unknown id",
    path: "/feed",
    id: "nope",
    status: 200,
    body: { route: "feed", guest: true, id: null },
    calls: 1
  },
  {
    guard: "optionalAuth",
    condition: "validator fails",
    path: "/feed",
    id: DOWN,
    status: 200,
    body: { route: "feed", guest: true, id: null },
    calls: 1
  },
  {
    guard: "optionalAuth",
    condition: "validator dies",
    path: "/feed",
    id: BOOM,
    status: 200,
    body: { route: "feed", guest: true, id: null },
    calls: 1
  },
  {
    guard: "optionalAuth",
    condition: "malformed id",
    path: "/feed",
    id: "a b",
    status: 200,
    body: { route: "feed", guest: true, id: null },
    calls: 0
  },
  {
    guard: "optionalAuth",
    condition: "valid id",
    path: "/feed",
    id: "s-user",
    status: 200,
    body: { route: "feed", guest: false, id: "u1" },
    calls: 1
  },
  // requireUserType
  {
    guard: "requireUserType",
    condition: 'one type as a string, "admin" (security item 3)',
    path: "/admin-only",
    id: "s-admin",
    status: 200,
    body: { route: "admin-only", id: "a1" },
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "one type as a string, not that type",
    path: "/admin-only",
    id: "s-ops",
    status: 403,
    body: { error: "Insufficient permissions. Required user types: admin" },
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "no session id (requireAuth first)",
    path: "/admin",
    status: 401,
    body: { error: "Session ID required" },
    calls: 0
  },
  {
    guard: "requireUserType",
    condition: "invalid (requireAuth first)",
    path: "/admin",
    id: "nope",
    status: 401,
    body: { error: "Invalid session" },
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "unavailable (requireAuth first)",
    path: "/admin",
    id: DOWN,
    status: 500,
    body: unavailable,
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "type not allowed",
    path: "/admin",
    id: "s-user",
    status: 403,
    body: { error: "Insufficient permissions. Required user types: admin, ops" },
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "no user_type",
    path: "/admin",
    id: "s-bare",
    status: 403,
    body: { error: "Insufficient permissions. Required user types: admin, ops" },
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "admin allowed",
    path: "/admin",
    id: "s-admin",
    status: 200,
    body: { route: "admin", id: "a1" },
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "ops allowed",
    path: "/admin",
    id: "s-ops",
    status: 200,
    body: { route: "admin", id: "o1" },
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "established guest",
    path: "/guest-then-type",
    status: 401,
    body: { error: "Authentication required" },
    calls: 0
  },
  {
    guard: "requireUserType",
    condition: "established guest (invalid id)",
    path: "/guest-then-type",
    id: "nope",
    status: 401,
    body: { error: "Authentication required" },
    calls: 1
  },
  {
    guard: "requireUserType",
    condition: "established user",
    path: "/guest-then-type",
    id: "s-user",
    status: 200,
    body: { route: "type", id: "u1" },
    calls: 1
  },
  // requirePermission
  {
    guard: "requirePermission",
    condition: "no session id (requireAuth first)",
    path: "/posts/1",
    method: "DELETE",
    status: 401,
    body: { error: "Session ID required" },
    calls: 0
  },
  {
    guard: "requirePermission",
    condition: "invalid (requireAuth first)",
    path: "/posts/1",
    method: "DELETE",
    id: "nope",
    status: 401,
    body: { error: "Invalid session" },
    calls: 1
  },
  {
    guard: "requirePermission",
    condition: "unavailable (requireAuth first)",
    path: "/posts/1",
    method: "DELETE",
    id: DOWN,
    status: 500,
    body: unavailable,
    calls: 1
  },
  {
    guard: "requirePermission",
    condition: "permission missing",
    path: "/posts/1",
    method: "DELETE",
    id: "s-user",
    status: 403,
    body: { error: "Permission required: posts:delete" },
    calls: 1
  },
  {
    guard: "requirePermission",
    condition: "no permissions at all",
    path: "/posts/1",
    method: "DELETE",
    id: "s-bare",
    status: 403,
    body: { error: "Permission required: posts:delete" },
    calls: 1
  },
  {
    guard: "requirePermission",
    condition: "permission held",
    path: "/posts/1",
    method: "DELETE",
    id: "s-ops",
    status: 200,
    body: { route: "delete", id: "o1" },
    calls: 1
  },
  {
    guard: "requirePermission",
    condition: "admin bypass",
    path: "/posts/1",
    method: "DELETE",
    id: "s-admin",
    status: 200,
    body: { route: "delete", id: "a1" },
    calls: 1
  },
  {
    guard: "requirePermission",
    condition: "established guest",
    path: "/guest-then-permission",
    id: DOWN,
    status: 401,
    body: { error: "Authentication required" },
    calls: 1
  },
  // requireAuth behind optionalAuth keeps its own texts
  {
    guard: "requireAuth",
    condition: "behind optionalAuth, no id",
    path: "/guest-then-auth",
    status: 401,
    body: { error: "Session ID required" },
    calls: 0
  },
  {
    guard: "requireAuth",
    condition: "behind optionalAuth, invalid id",
    path: "/guest-then-auth",
    id: "nope",
    status: 401,
    body: { error: "Invalid session" },
    calls: 1
  },
  {
    guard: "requireAuth",
    condition: "behind optionalAuth, unavailable",
    path: "/guest-then-auth",
    id: DOWN,
    status: 500,
    body: unavailable,
    calls: 1
  }
]
