/**
 * This line's guards (`common/guards.ts`), made once over its dialect and service keys, so that
 * every guard, router middleware and `HttpApi` middleware shares one resolution per request.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { guardsOf } from "../../../common/guards.js"
import type * as rules from "../../../core/authRules.js"
import { auth } from "../../internal/auth.js"
import { AuthContext, type AuthenticatedUser, CurrentUser } from "../CurrentUser.js"
import type { SessionData } from "../SessionData.js"
import { SessionValidator } from "../SessionValidator.js"

/** The outcome of looking at a request's session: what every later guard on it reuses. */
export type Resolution = rules.Resolution<AuthenticatedUser>

export type GuardRequirements = SessionValidator | HttpServerRequest.HttpServerRequest

export const guards = /*#__PURE__*/ guardsOf<
  SessionData,
  HttpServerResponse.HttpServerResponse,
  GuardRequirements,
  CurrentUser | AuthContext,
  AuthContext
>(auth, { validator: SessionValidator, currentUser: CurrentUser, authContext: AuthContext })
