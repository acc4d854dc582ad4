import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { GuardSettings } from "../../core/authOptions.js"
import * as rules from "../../core/authRules.js"
import { type AuthenticatedUser, CurrentUser } from "../CurrentUser.js"
import type { SessionData } from "../SessionData.js"
import { SessionValidator } from "../SessionValidator.js"
import { SessionValidatorUnavailable } from "../SessionValidatorUnavailable.js"

/** The outcome of looking at a request's session: what every later guard on it reuses. */
export type Resolution = rules.Resolution<AuthenticatedUser>

/** Set by the first guard of a request for the guards it wraps. */
export class EstablishedResolution extends Context.Service<EstablishedResolution, Resolution>()(
  "svc-sdk/Auth/EstablishedResolution"
) {}

export type ResolveRequirements = SessionValidator | HttpServerRequest.HttpServerRequest

const authenticated = (answer: SessionData): Resolution => {
  const session = rules.ownSession(answer)
  const user: AuthenticatedUser = { user_id: session.user_id, session, is_guest: false }
  validated.add(user)
  return { _tag: "Authenticated", user }
}

/**
 * The users these guards made from a validator's answer. A user in the context counts as
 * established only when it is one of them: an application's own `CurrentUser` (a test layer, a
 * "system" user) never lets a request past a guard without its session being validated.
 */
const validated = new WeakSet<AuthenticatedUser>()

/**
 * What an earlier guard or middleware established on this request, read from the context: the
 * resolution a guard (router or `HttpApi` middleware) provides to what it wraps, or a
 * `CurrentUser` — when these guards made its user.
 */
const established = (context: Context.Context<never>): Resolution | undefined => {
  const resolution = Context.getOption(context, EstablishedResolution)
  if (Option.isSome(resolution)) {
    const found = resolution.value
    return found._tag !== "Authenticated" || validated.has(found.user) ? found : undefined
  }
  const user = Context.getOption(context, CurrentUser)
  return Option.isSome(user) && validated.has(user.value)
    ? { _tag: "Authenticated", user: user.value }
    : undefined
}

/**
 * The established resolution if an earlier guard set one (`known`), else a fresh one: read the id,
 * and ask the validator only for a well-formed one.
 */
export const resolve = <A, E, R>(
  settings: GuardSettings,
  next: (resolution: Resolution, known: boolean) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | ResolveRequirements> =>
  Effect.contextWith((context: Context.Context<ResolveRequirements>) => {
    const known = established(context as Context.Context<never>)
    if (known !== undefined) return next(known, true)
    const reading = rules.readRequest(
      Context.get(context, HttpServerRequest.HttpServerRequest),
      settings
    )
    if (reading._tag !== "Found") return next(reading, false)
    const validator = Context.get(context, SessionValidator)
    const onAnswer = (resolution: Resolution) => next(resolution, false)
    // redacted from here on: the id never reaches a log, an error or a span
    const id = Redacted.make(reading.id)
    // an answer the validator holds already (memory, a cache hit) costs no fiber and no timer
    const held = knownAnswer(validator, id)
    if (held !== undefined) return answer(held, onAnswer)
    return Effect.flatMap(validate(validator, id, settings.timeoutMillis), (exit) =>
      answer(exit, onAnswer)
    )
  })

type Answer = Exit.Exit<Option.Option<SessionData>, SessionValidatorUnavailable>

/** The validator's `known` answer as an `Exit`; a `known` that throws is unavailable. */
const knownAnswer = (
  validator: SessionValidator["Service"],
  id: Redacted.Redacted<string>
): Answer | undefined => {
  if (validator.known === undefined) return undefined
  try {
    const known = validator.known(id)
    return Option.isSome(known) ? Exit.succeed(known.value) : undefined
  } catch (cause) {
    return Exit.die(cause)
  }
}

/**
 * Asks the validator, within `timeoutMillis` when there is one. A validator that throws instead of
 * failing is unavailable, like one that fails (`Effect.suspend` makes the throw a defect). The
 * validation runs interruptible even where the app runs uninterruptibly, so that the timeout, or
 * the request's end, stops a validator that hangs.
 */
const validate = (
  validator: SessionValidator["Service"],
  id: Redacted.Redacted<string>,
  timeoutMillis: number | undefined
): Effect.Effect<Answer> => {
  const validation = Effect.suspend(() => validator.validate(id))
  const limited =
    timeoutMillis === undefined
      ? validation
      : Effect.timeoutOrElse(validation, {
          duration: timeoutMillis,
          orElse: () => Effect.fail(new SessionValidatorUnavailable({ reason: "Timeout" }))
        })
  return Effect.exit(Effect.interruptible(limited))
}

const answer = <A, E, R>(
  exit: Answer,
  next: (resolution: Resolution) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  if (Exit.isSuccess(exit)) {
    return next(Option.isSome(exit.value) ? authenticated(exit.value.value) : rules.invalid)
  }
  return Effect.andThen(logUnavailable(exit.cause), next(rules.unavailable))
}

/**
 * One short line per validation that could not answer: the reason only. Neither the cause (a
 * lookup's error may quote the id) nor a description (an auth service's answer may hold it) nor a
 * stack trace goes into the log.
 */
const logUnavailable = (cause: Cause.Cause<SessionValidatorUnavailable>) => {
  const failure = Cause.findErrorOption(cause)
  const reason = Option.isSome(failure) ? failure.value.reason : "Defect"
  return Effect.logWarning(`Session validator unavailable (${reason})`).pipe(
    Effect.annotateLogs("module", "svc-sdk/Auth")
  )
}
