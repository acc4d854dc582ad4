import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import { resolver } from "../../../common/resolution.js"
import type { GuardSettings } from "../../../core/authOptions.js"
import type * as rules from "../../../core/authRules.js"
import { type AuthenticatedUser, CurrentUser } from "../CurrentUser.js"
import { SessionValidator } from "../SessionValidator.js"
import { line } from "./line.js"

/** The outcome of looking at a request's session: what every later guard on it reuses. */
export type Resolution = rules.Resolution<AuthenticatedUser>

/** Set by the first guard of a request for the guards it wraps. */
export class EstablishedResolution extends Context.Tag("svc-sdk/Auth/EstablishedResolution")<
  EstablishedResolution,
  Resolution
>() {}

export type ResolveRequirements = SessionValidator | HttpServerRequest.HttpServerRequest

/**
 * Effect 3's `HttpApiBuilder` lets a middleware pass on only the service it `provides`: a later
 * `HttpApiAuth` middleware finds the `CurrentUser` an earlier one provided, which the shared
 * resolution accepts when these guards made its user.
 */
const resolveIn = resolver(line, {
  request: (context) =>
    Context.get(
      context as Context.Context<HttpServerRequest.HttpServerRequest>,
      HttpServerRequest.HttpServerRequest
    ),
  validator: (context) =>
    Context.get(context as Context.Context<SessionValidator>, SessionValidator),
  currentUser: (context) => Context.getOption(context, CurrentUser),
  established: (context) => Context.getOption(context, EstablishedResolution)
})

/**
 * The established resolution if an earlier guard set one (`known`), else a fresh one: read the id,
 * and ask the validator only for a well-formed one (`common/resolution.ts`).
 */
export const resolve: <A, E, R>(
  settings: GuardSettings,
  next: (resolution: Resolution, known: boolean) => Effect.Effect<A, E, R>
) => Effect.Effect<A, E, R | ResolveRequirements> = resolveIn
