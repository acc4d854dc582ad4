/**
 * The four guards of both lines, over a line's dialect and service keys: its resolution
 * (`resolution.ts`), its error response, and how it provides the user or the `AuthContext` to the
 * handler. Each line's `Auth/Guards.ts` makes them once, with its types.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import {
  guardSettings as checkGuardOptions,
  type GuardOptionsOf,
  type GuardSettings,
  type PermissionOptionsOf
} from "../core/authOptions.js"
import {
  type AuthenticatedUserOf,
  authenticatedOnly,
  authenticationRequired,
  type Check,
  guest,
  permissionCheck,
  type Rejection,
  type Resolution,
  type SessionFields,
  userTypeCheck
} from "../core/authRules.js"
import type { AuthDialect } from "./dialect.js"
import { type ResolutionKeys, resolver } from "./resolution.js"

/** The service keys of a line's guards: what they read, and what they provide. */
export interface GuardKeys extends Omit<ResolutionKeys, "established"> {
  readonly authContext: unknown
}

/**
 * The authenticated user's id on the current span, as `user.id`: only where the app opted in
 * (`spanUserId`), since it is personal data. Never the session id.
 */
export const spanUserId = (userId: string): Effect.Effect<void> =>
  Effect.annotateCurrentSpan("user.id", userId)

/**
 * The guards of a line. `Requirements` are what a guard needs (the line's `SessionValidator` and
 * `HttpServerRequest`), `UserServices` and `ContextServices` what it gives its handler
 * (`CurrentUser` and `AuthContext`, or `AuthContext` alone), `Response` the line's response.
 */
export const guardsOf = <
  Session extends SessionFields,
  Response,
  Requirements,
  UserServices,
  ContextServices
>(
  line: AuthDialect<Session>,
  keys: GuardKeys
) => {
  type User = AuthenticatedUserOf<Session, Redacted.Redacted<string>>
  /** Set by the first guard of a request for the guards it wraps. */
  const established = line.serviceKey("svc-sdk/Auth/EstablishedResolution")
  const resolveIn = resolver(line, { ...keys, established })

  /**
   * The established resolution if an earlier guard set one (`known`), else a fresh one: read the
   * id, and ask the validator only for a well-formed one.
   */
  const resolve = <A, E, R>(
    settings: GuardSettings,
    next: (resolution: Resolution<User>, known: boolean) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R | Requirements> => resolveIn(settings, next)

  /** Every default in one place; bad options throw here, when the guard is made. */
  const guardSettings = (guard: string, options: GuardOptionsOf<unknown> | undefined) =>
    checkGuardOptions(line.client.durationMillis, guard, options)

  /**
   * What a guard provides to what it wraps: the user (or the guest) and the resolution, for later
   * guards. One small context, merged once into the handler's.
   */
  const userContext = (resolution: Resolution<User>, user: User): Context.Context<UserServices> =>
    Context.make(established as never, resolution).pipe(
      Context.add(keys.authContext as never, user),
      Context.add(keys.currentUser as never, user)
    ) as Context.Context<UserServices>

  const authContext = (resolution: Resolution<User>): Context.Context<ContextServices> =>
    Context.make(established as never, resolution).pipe(
      Context.add(
        keys.authContext as never,
        resolution._tag === "Authenticated" ? resolution.user : guest
      )
    ) as Context.Context<ContextServices>

  /** The user's id on the current span (the app opted in), then the handler. */
  const annotated = <A, E, R>(user: User, handler: Effect.Effect<A, E, R>) =>
    Effect.flatMap(spanUserId(user.session.user_id), () => handler)

  /** The handler's answer with `Cache-Control: no-store`, when it is a response. */
  const answerWithNoStore = <A>(answer: A): A =>
    line.isResponse(answer) ? (line.withNoStore(answer) as A) : answer

  /** A guard's refusal, `Cache-Control: no-store` on it. */
  const refusal = (refused: Rejection) =>
    Effect.succeed(line.withNoStore(line.errorResponse(refused.status, refused.text)) as Response)

  /**
   * Runs `check` on the established resolution (or a fresh one) and either answers with its
   * response or runs the handler with the user provided. `known` tells whether an earlier guard
   * established it.
   */
  const authenticated =
    (settings: GuardSettings, check: Check) =>
    <A, E, R>(
      self: Effect.Effect<A, E, R>
    ): Effect.Effect<A | Response, E, Exclude<R, UserServices> | Requirements> =>
      // `Cache-Control: no-store` on whatever answers the request: the handler's response, the
      // guard's 401, 403 and 500, the server's answer to a failure
      resolve(
        settings,
        (resolution, known): Effect.Effect<A | Response, E, Exclude<R, UserServices>> => {
          const refused = check(resolution, known)
          if (refused !== undefined) return refusal(refused)
          if (resolution._tag !== "Authenticated") return refusal(authenticationRequired)
          // the user's id on the span before the handler; `Cache-Control: no-store` on its
          // response or, when it fails, on the server's answer (`AuthDialect.noStore`)
          return line.provideThen(
            settings.spanUserId ? annotated(resolution.user, self) : self,
            userContext(resolution, resolution.user),
            answerWithNoStore,
            line.noStore
          ) as Effect.Effect<A, E, Exclude<R, UserServices>>
        }
      )

  /** Gives the handler the user or the guest: it never refuses. */
  const optional =
    (settings: GuardSettings) =>
    <A, E, R>(
      self: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E, Exclude<R, ContextServices> | Requirements> =>
      resolve(settings, (resolution) => {
        const handler = line.provideContext(
          self,
          authContext(resolution) as Context.Context<never>
        ) as Effect.Effect<A, E, Exclude<R, ContextServices>>
        return settings.spanUserId && resolution._tag === "Authenticated"
          ? annotated(resolution.user, handler)
          : handler
      })

  return {
    resolve,
    /** `Cache-Control: no-store` on the request's answer, unless it has a `Cache-Control` (`AuthDialect.noStore`). */
    noStore: line.noStore,
    guardSettings,
    userContext,
    authContext,
    requireAuth: (options?: GuardOptionsOf<unknown>) =>
      authenticated(guardSettings("requireAuth", options), authenticatedOnly),
    optionalAuth: (options?: GuardOptionsOf<unknown>) =>
      optional(guardSettings("optionalAuth", options)),
    requireUserType: (
      typeOrTypes: string | ReadonlyArray<string>,
      options?: GuardOptionsOf<unknown>
    ) =>
      authenticated(
        guardSettings("requireUserType", options),
        userTypeCheck("requireUserType", typeOrTypes)
      ),
    requirePermission: (permission: string, options?: PermissionOptionsOf<unknown, Session>) =>
      authenticated(
        guardSettings("requirePermission", options),
        permissionCheck("requirePermission", permission, options)
      )
  }
}
