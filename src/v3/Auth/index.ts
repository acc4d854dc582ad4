/**
 * Server-side auth for `@effect/platform`: guards, the user they provide, and session validators.
 *
 * @since 0.1.0
 * @module svc-sdk/v3/Auth
 */

// first: with effect 4 installed, the error says to import svc-sdk (see internal/effect3.ts)
import "../internal/effect3.js"

export * as AuthMiddleware from "./AuthMiddleware.js"
export {
  AuthContext,
  type AuthenticatedUser,
  CurrentUser,
  type Guest,
  guest
} from "./CurrentUser.js"
export {
  type AuthGuard,
  type GuardOptions,
  isAdministrator,
  layerRedactSessionHeader,
  optionalAuth,
  type PermissionOptions,
  requireAuth,
  requirePermission,
  requireUserType
} from "./Guards.js"
export * as HttpApiAuth from "./HttpApiAuth.js"
export {
  LoginThrottle,
  LoginThrottleError,
  type LoginThrottleOptions,
  type LoginThrottleService,
  type RedisThrottleOptions,
  TooManyAttempts
} from "./LoginThrottle.js"
export {
  clearSessionCookie,
  type SessionCookieOptions,
  setSessionCookie
} from "./SessionCookie.js"
export { SessionData, type SessionDataInput } from "./SessionData.js"
export {
  type RedisStoreOptions,
  type SessionInfo,
  type SessionLifetimes,
  SessionStore,
  SessionStoreError,
  type SessionStoreOptions,
  type SessionStoreService
} from "./SessionStore.js"
export {
  type CacheOptions,
  type HttpValidatorOptions,
  type MemorySessions,
  type SessionLookup,
  SessionValidator,
  type SessionValidatorService,
  SessionValidatorUnavailable,
  type SessionValidatorUnavailableReason
} from "./SessionValidator.js"
