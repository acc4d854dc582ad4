import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { trustedOriginsOption } from "../../../core/crossSite.js"
import { DEFAULT_SESSION_HEADER } from "../../../core/http.js"
import { AuthContext, type AuthenticatedUser, CurrentUser, guest } from "../CurrentUser.js"
import type { GuardOptions, PermissionOptions } from "../Guards.js"
import type { SessionData } from "../SessionData.js"
import { describe, durationOption, nameOption } from "./options.js"
import {
  type Authenticated,
  EstablishedResolution,
  type Resolution,
  type ResolveRequirements,
  type ResolveSettings,
  resolve
} from "./resolution.js"
import { ErrorText, errorResponse } from "./responses.js"

export const DEFAULT_TIMEOUT = Duration.seconds(5)

/** Every default in one place; bad options throw here, when the guard is made. */
export const guardSettings = (
  guard: string,
  options: GuardOptions | undefined
): ResolveSettings => {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`${guard}: options must be an object, got ${describe(options)}`)
  }
  const timeout = timeoutOption(`${guard}: options.timeout`, options?.timeout)
  const csrf = options?.csrf ?? true
  if (typeof csrf !== "boolean") {
    throw new TypeError(`${guard}: options.csrf must be a boolean, got ${describe(csrf)}`)
  }
  return {
    source: {
      header: nameOption(
        `${guard}: options.header`,
        options?.header,
        DEFAULT_SESSION_HEADER
      ).toLowerCase(),
      cookie: switchableName(`${guard}: options.cookie`, options?.cookie),
      query: switchableName(`${guard}: options.query`, options?.query)
    },
    timeout,
    crossSite: {
      enabled: csrf,
      trustedOrigins: trustedOriginsOption(
        `${guard}: options.trustedOrigins`,
        options?.trustedOrigins
      )
    }
  }
}

/** Default 5 s; an infinite duration means no timeout. */
const timeoutOption = (name: string, value: Duration.DurationInput | undefined) => {
  if (value === undefined) return DEFAULT_TIMEOUT
  const decoded = Duration.decodeUnknown(value)
  if (decoded._tag === "Some" && !Duration.isFinite(decoded.value)) return undefined
  return durationOption(name, value, DEFAULT_TIMEOUT)
}

const switchableName = (name: string, value: string | false | undefined): string | false =>
  value === false ? false : nameOption(name, value, "session_id")

/** Why a guard refuses a request: the pinned status and error text. */
export interface Rejection {
  readonly status: 401 | 403 | 500
  readonly text: string
}

const refuse = (status: Rejection["status"], text: string): Rejection => ({ status, text })
const rejections = {
  Missing: refuse(401, ErrorText.sessionIdRequired),
  Malformed: refuse(401, ErrorText.invalidSession),
  Invalid: refuse(401, ErrorText.invalidSession),
  Unavailable: refuse(500, ErrorText.unavailable),
  CrossSite: refuse(403, ErrorText.crossSite)
} as const
const authenticationRequired = refuse(401, ErrorText.authenticationRequired)

/** `requireAuth`'s answer to a resolution that is not `Authenticated`. */
export const rejection = (resolution: Exclude<Resolution, Authenticated>): Rejection =>
  rejections[resolution._tag]

/** `requireAuth`'s check: `Authenticated` goes on. */
const authenticatedOnly: Check = (resolution) =>
  resolution._tag === "Authenticated" ? undefined : rejection(resolution)

/** What a guard checks once the resolution is there; `known` when an earlier guard made it. */
export type Check = (resolution: Resolution, known: boolean) => Rejection | undefined

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
  (settings: ResolveSettings, check: Check) =>
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

/**
 * An established guest is `Authentication required`; a fresh failure is `requireAuth`'s error, and
 * so is a cross-site request, however it was established.
 */
const rejectGuest = (resolution: Resolution, known: boolean) =>
  resolution._tag === "Authenticated"
    ? undefined
    : known && resolution._tag !== "CrossSite"
      ? authenticationRequired
      : rejection(resolution)

/** `requireUserType`'s check; bad types throw, naming `guard`. */
export const userTypeCheck = (
  guard: string,
  typeOrTypes: string | ReadonlyArray<string>
): Check => {
  const types = typeof typeOrTypes === "string" ? [typeOrTypes] : typeOrTypes
  if (!Array.isArray(types)) {
    throw new TypeError(
      `${guard}: types must be a string or an array of strings, got ${describe(typeOrTypes)}`
    )
  }
  if (types.length === 0) throw new RangeError(`${guard}: types must not be empty`)
  for (const type of types) {
    if (typeof type !== "string" || type.length === 0) {
      throw new TypeError(`${guard}: every type must be a non-empty string, got ${describe(type)}`)
    }
  }
  const allowed = new Set(types)
  const forbidden = refuse(403, ErrorText.userTypes([...types]))
  return (resolution, known) => {
    if (resolution._tag !== "Authenticated") return rejectGuest(resolution, known)
    const type = ownField(resolution.user.session, "user_type")
    return typeof type === "string" && allowed.has(type) ? undefined : forbidden
  }
}

export const requireUserType = (
  typeOrTypes: string | ReadonlyArray<string>,
  options?: GuardOptions
) =>
  authenticatedGuard(
    guardSettings("requireUserType", options),
    userTypeCheck("requireUserType", typeOrTypes)
  )

/**
 * A field the session has itself: an inherited one (from a polluted prototype, say) never counts as
 * the user's type or permissions.
 */
const ownField = (session: SessionData, key: "user_type" | "permissions"): unknown =>
  Object.hasOwn(session, key) ? session[key] : undefined

export const isAdministrator = (session: SessionData): boolean =>
  ownField(session, "user_type") === "admin"

const hasPermission = (session: SessionData, permission: string): boolean => {
  const permissions = ownField(session, "permissions")
  return Array.isArray(permissions) && permissions.includes(permission)
}

/** `requirePermission`'s check; a bad permission or `isAdmin` throws, naming `guard`. */
export const permissionCheck = (
  guard: string,
  permission: string,
  options: PermissionOptions | undefined
): Check => {
  if (typeof permission !== "string") {
    throw new TypeError(`${guard}: permission must be a string, got ${describe(permission)}`)
  }
  if (permission.length === 0) throw new RangeError(`${guard}: permission must not be empty`)
  const isAdmin = options?.isAdmin ?? isAdministrator
  if (typeof isAdmin !== "function") {
    throw new TypeError(`${guard}: options.isAdmin must be a function, got ${describe(isAdmin)}`)
  }
  const forbidden = refuse(403, ErrorText.permission(permission))
  return (resolution, known) => {
    if (resolution._tag !== "Authenticated") return rejectGuest(resolution, known)
    const session = resolution.user.session
    return isAdmin(session) || hasPermission(session, permission) ? undefined : forbidden
  }
}

export const requirePermission = (permission: string, options?: PermissionOptions) =>
  authenticatedGuard(
    guardSettings("requirePermission", options),
    permissionCheck("requirePermission", permission, options)
  )
