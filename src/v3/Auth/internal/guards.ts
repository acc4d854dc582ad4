import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import {
  guardSettings as checkGuardOptions,
  type GuardOptionsOf,
  type GuardSettings
} from "../../../core/authOptions.js"
import {
  authenticatedOnly,
  type Check,
  guest,
  permissionCheck,
  rejection,
  userTypeCheck
} from "../../../core/authRules.js"
import { ErrorText } from "../../../core/authTexts.js"
import { line } from "../../Client/internal/line.js"
import { AuthContext, type AuthenticatedUser, CurrentUser } from "../CurrentUser.js"
import type { GuardOptions, PermissionOptions } from "../Guards.js"
import {
  EstablishedResolution,
  type Resolution,
  type ResolveRequirements,
  resolve
} from "./resolution.js"
import { errorResponse } from "./responses.js"

export { type Check, permissionCheck, rejection, userTypeCheck }

/** Every default in one place; bad options throw here, when the guard is made. */
export const guardSettings = (
  guard: string,
  options: GuardOptionsOf<unknown> | undefined
): GuardSettings => checkGuardOptions(line.durationMillis, guard, options)

/**
 * Provides the user (and the resolution, for later guards): one small context, merged once into
 * the handler's.
 */
const withUser = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  resolution: Resolution,
  user: AuthenticatedUser
): Effect.Effect<A, E, Exclude<R, CurrentUser | AuthContext>> =>
  Effect.provide(
    self,
    Context.make(EstablishedResolution, resolution).pipe(
      Context.add(AuthContext, user),
      Context.add(CurrentUser, user)
    )
  ) as Effect.Effect<A, E, Exclude<R, CurrentUser | AuthContext>>

const withAuthContext = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  resolution: Resolution
): Effect.Effect<A, E, Exclude<R, AuthContext>> =>
  Effect.provide(
    self,
    Context.make(EstablishedResolution, resolution).pipe(
      Context.add(AuthContext, resolution._tag === "Authenticated" ? resolution.user : guest)
    )
  ) as Effect.Effect<A, E, Exclude<R, AuthContext>>

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
        const refused = check(resolution, known)
        if (refused !== undefined)
          return Effect.succeed(errorResponse(refused.status, refused.text))
        return resolution._tag === "Authenticated"
          ? withUser(self, resolution, resolution.user)
          : Effect.succeed(errorResponse(401, ErrorText.authenticationRequired))
      }
    )

export const requireAuth = (options?: GuardOptions) =>
  authenticatedGuard(guardSettings("requireAuth", options), authenticatedOnly)

export const optionalAuth = (options?: GuardOptions) => {
  const settings = guardSettings("optionalAuth", options)
  return <A, E, R>(
    self: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, Exclude<R, AuthContext> | GuardRequirements> =>
    resolve(settings, (resolution) => withAuthContext(self, resolution))
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
