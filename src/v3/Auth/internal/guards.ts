import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { guardsOf } from "../../../common/guards.js"
import {
  guardSettings as checkGuardOptions,
  type GuardOptionsOf,
  type GuardSettings
} from "../../../core/authOptions.js"
import {
  type Check,
  guest,
  permissionCheck,
  rejection,
  userTypeCheck
} from "../../../core/authRules.js"
import { client as line } from "../../internal/dialect.js"
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

/** The guards of `common/guards.ts`, over this line's resolution, response and context. */
const guards = guardsOf<
  AuthenticatedUser,
  HttpServerResponse.HttpServerResponse,
  ResolveRequirements,
  CurrentUser | AuthContext,
  AuthContext
>({ resolve, errorResponse, withUser, withAuthContext })

export const requireAuth = (options?: GuardOptions) =>
  guards.requireAuth(guardSettings("requireAuth", options))

export const optionalAuth = (options?: GuardOptions) =>
  guards.optionalAuth(guardSettings("optionalAuth", options))

export const requireUserType = (
  typeOrTypes: string | ReadonlyArray<string>,
  options?: GuardOptions
) =>
  guards.checked(
    guardSettings("requireUserType", options),
    userTypeCheck("requireUserType", typeOrTypes)
  )

export const requirePermission = (permission: string, options?: PermissionOptions) =>
  guards.checked(
    guardSettings("requirePermission", options),
    permissionCheck("requirePermission", permission, options)
  )
