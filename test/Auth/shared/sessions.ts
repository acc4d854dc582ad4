/**
 * The sessions and ids every auth test uses, on both Effect lines.
 */
import type { SessionDataInput } from "../../../src/core/authRules.js"

export const SESSIONS: Record<string, SessionDataInput & Record<string, unknown>> = {
  "s-user": {
    user_id: "u1",
    email: "u1@example.com",
    user_type: "user",
    permissions: ["posts:read"],
    team: "core"
  },
  "s-ops": { user_id: "o1", user_type: "ops", permissions: ["posts:delete"] },
  "s-admin": { user_id: "a1", user_type: "admin" },
  "s-bare": { user_id: "b1" }
}

/** Ids with a behaviour instead of a session. */
export const DOWN = "down" // fails: unavailable
export const BOOM = "boom" // dies: a defect
export const SLOW = "slow" // never answers

/** A server's answer, as the tests compare it. */
export interface Reply {
  readonly status: number
  readonly contentType: string | undefined
  readonly cacheControl: string | undefined
  readonly body: unknown
}
