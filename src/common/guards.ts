/**
 * The four guards of both lines over what a line gives them: its resolution (`resolution.ts`), its
 * error response, and how it provides the user or the `AuthContext` to the handler.
 */
import * as Effect from "effect/Effect"
import type { GuardSettings } from "../core/authOptions.js"
import {
  authenticatedOnly,
  authenticationRequired,
  type Check,
  type Rejection,
  type Resolution,
  type SessionFields
} from "../core/authRules.js"

/**
 * What the guards need of a line. `UserServices` and `ContextServices` are what a guard gives its
 * handler (`CurrentUser` and `AuthContext`, or `AuthContext` alone).
 */
export interface GuardLine<User, Response, Requirements, UserServices, ContextServices> {
  readonly resolve: <A, E, R>(
    settings: GuardSettings,
    next: (resolution: Resolution<User>, known: boolean) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R | Requirements>
  /** `{"error": text}` as `application/json`, with `status`. */
  readonly errorResponse: (status: number, text: string) => Response
  /** `self` with the user (`CurrentUser`, `AuthContext`) and the resolution provided. */
  readonly withUser: <A, E, R>(
    self: Effect.Effect<A, E, R>,
    resolution: Resolution<User>,
    user: User
  ) => Effect.Effect<A, E, Exclude<R, UserServices>>
  /** `self` with the user or the guest as `AuthContext`, and the resolution, provided. */
  readonly withAuthContext: <A, E, R>(
    self: Effect.Effect<A, E, R>,
    resolution: Resolution<User>
  ) => Effect.Effect<A, E, Exclude<R, ContextServices>>
}

/**
 * The authenticated user's id on the current span, as `user.id`: only where the app opted in
 * (`spanUserId`), since it is personal data. Never the session id.
 */
export const spanUserId = (userId: string): Effect.Effect<void> =>
  Effect.annotateCurrentSpan("user.id", userId)

export const guardsOf = <
  User extends { readonly session: SessionFields },
  Response,
  Requirements,
  UserServices,
  ContextServices
>(
  line: GuardLine<User, Response, Requirements, UserServices, ContextServices>
) => {
  /** The user's id on the current span (the app opted in), then the handler. */
  const annotated = <A, E, R>(user: User, handler: Effect.Effect<A, E, R>) =>
    Effect.flatMap(spanUserId(user.session.user_id), () => handler)

  const refusal = (refused: Rejection) =>
    Effect.succeed(line.errorResponse(refused.status, refused.text))

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
      line.resolve(
        settings,
        (resolution, known): Effect.Effect<A | Response, E, Exclude<R, UserServices>> => {
          const refused = check(resolution, known)
          if (refused !== undefined) return refusal(refused)
          if (resolution._tag !== "Authenticated") return refusal(authenticationRequired)
          const handler = line.withUser(self, resolution, resolution.user)
          return settings.spanUserId ? annotated(resolution.user, handler) : handler
        }
      )

  /** Gives the handler the user or the guest: it never refuses. */
  const optional =
    (settings: GuardSettings) =>
    <A, E, R>(
      self: Effect.Effect<A, E, R>
    ): Effect.Effect<A, E, Exclude<R, ContextServices> | Requirements> =>
      line.resolve(settings, (resolution) => {
        const handler = line.withAuthContext(self, resolution)
        return settings.spanUserId && resolution._tag === "Authenticated"
          ? annotated(resolution.user, handler)
          : handler
      })

  return {
    requireAuth: (settings: GuardSettings) => authenticated(settings, authenticatedOnly),
    optionalAuth: optional,
    /** A guard that refuses what `check` refuses, after authenticating. */
    checked: authenticated
  }
}
