import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import { line } from "../../Client/internal/line.js"
import {
  guardSettings as checkGuardOptions,
  type GuardOptionsOf,
  type GuardSettings
} from "../../core/authOptions.js"
import {
  authenticatedOnly,
  authenticationRequired,
  type Check,
  guest,
  permissionCheck,
  userTypeCheck
} from "../../core/authRules.js"
import { AuthContext, type AuthenticatedUser, CurrentUser } from "../CurrentUser.js"
import type { GuardOptions, PermissionOptions } from "../Guards.js"
import {
  EstablishedResolution,
  type Resolution,
  type ResolveRequirements,
  resolve
} from "./resolution.js"
import { errorResponse } from "./responses.js"

/** Every default in one place; bad options throw here, when the guard is made. */
export const guardSettings = (
  guard: string,
  options: GuardOptionsOf<unknown> | undefined
): GuardSettings => checkGuardOptions(line.durationMillis, guard, options)

/**
 * What a guard provides to what it wraps: the user (or the guest) and the resolution, for later
 * guards. One small context, merged once into the handler's.
 */
export const userContext = (
  resolution: Resolution,
  user: AuthenticatedUser
): Context.Context<EstablishedResolution | AuthContext | CurrentUser> =>
  Context.make(EstablishedResolution, resolution).pipe(
    Context.add(AuthContext, user),
    Context.add(CurrentUser, user)
  )

export const authContext = (
  resolution: Resolution
): Context.Context<EstablishedResolution | AuthContext> =>
  Context.make(EstablishedResolution, resolution).pipe(
    Context.add(AuthContext, resolution._tag === "Authenticated" ? resolution.user : guest)
  )

export type GuardRequirements = ResolveRequirements

/**
 * Runs `check` on the established resolution (or a fresh one) and either answers with its response
 * or runs the handler with the user provided. `known` tells whether an earlier guard established it.
 */
const authenticatedGuard =
  (settings: GuardSettings, check: Check) =>
  <A, E, R>(
    self: Effect.Effect<A, E, R>
  ): Effect.Effect<
    A | HttpServerResponse.HttpServerResponse,
    E,
    Exclude<R, CurrentUser | AuthContext> | GuardRequirements
  > =>
    resolve(
      settings,
      (
        resolution,
        known
      ): Effect.Effect<
        A | HttpServerResponse.HttpServerResponse,
        E,
        Exclude<R, CurrentUser | AuthContext>
      > => {
        const refused =
          check(resolution, known) ??
          (resolution._tag === "Authenticated" ? undefined : authenticationRequired)
        if (refused !== undefined) {
          return Effect.succeed(errorResponse(refused.status, refused.text))
        }
        const user = (resolution as Extract<Resolution, { _tag: "Authenticated" }>).user
        return Effect.provideContext(self, userContext(resolution, user)) as Effect.Effect<
          A,
          E,
          Exclude<R, CurrentUser | AuthContext>
        >
      }
    )

export const requireAuth = (options?: GuardOptions) =>
  authenticatedGuard(guardSettings("requireAuth", options), authenticatedOnly)

export const optionalAuth = (options?: GuardOptions) => {
  const settings = guardSettings("optionalAuth", options)
  return <A, E, R>(
    self: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, Exclude<R, AuthContext> | GuardRequirements> =>
    resolve(
      settings,
      (resolution) =>
        Effect.provideContext(self, authContext(resolution)) as Effect.Effect<
          A,
          E,
          Exclude<R, AuthContext>
        >
    )
}

export const requireUserType = (
  typeOrTypes: string | ReadonlyArray<string>,
  options?: GuardOptions
) =>
  authenticatedGuard(
    guardSettings("requireUserType", options),
    userTypeCheck("requireUserType", typeOrTypes)
  )

export const requirePermission = (permission: string, options?: PermissionOptions) =>
  authenticatedGuard(
    guardSettings("requirePermission", options),
    permissionCheck("requirePermission", permission, options)
  )
