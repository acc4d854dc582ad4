/**
 * How a guard of either line comes to its resolution: the one an earlier guard established on the
 * request, else a fresh one — read the id, ask the validator only for a well-formed one. The line
 * gives its service keys and its dialect (`dialect.ts`).
 */
import type * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { GuardSettings } from "../core/authOptions.js"
import * as rules from "../core/authRules.js"
import type { RequestOf } from "./authRequest.js"
import type { SessionValidatorServiceOf } from "./authServices.js"
import type { AuthDialect } from "./dialect.js"
import { SessionValidatorUnavailable } from "./SessionValidatorUnavailable.js"

type User<Session> = rules.AuthenticatedUserOf<Session, Redacted.Redacted<string>>

/**
 * The service keys a line's guards read from a request's context: its `SessionValidator`, its
 * `CurrentUser` and the resolution its first guard establishes.
 */
export interface ResolutionKeys {
  readonly validator: unknown
  readonly currentUser: unknown
  readonly established: unknown
}

/**
 * The users these guards made from a validator's answer, each marked with the number of the
 * request it was made for (`requestNumber`). A user in the context counts as established only
 * when it is one of them, made for this request: an application's own `CurrentUser` (a test
 * layer, a "system" user, a copy of the guard's user with a field changed) or a user kept from an
 * earlier request and provided on a later one never lets a request past a guard without its
 * session being validated.
 */
const guardUsers = rules.privateBrand<number>()

/**
 * Each request's number, kept on the server's own request object (`HttpServerRequest.source`,
 * the same under every view of the request, a mounted router's included) as a private field: no
 * weak collection per request, and a kept user holds a number, never the request. `undefined` for
 * a request without such an object: its guards trust no earlier guard's user.
 */
const requestNumbers = rules.privateBrand<number>()
let requestsNumbered = 0
const requestNumber = (source: unknown): number | undefined => {
  if (typeof source !== "object" || source === null) return undefined
  if (requestNumbers.has(source)) return requestNumbers.read(source, undefined)
  try {
    requestNumbers.stamp(source, ++requestsNumbered)
  } catch {
    // an object that takes no private field (a runtime that refuses one on a frozen object)
    return undefined
  }
  return requestsNumbered
}

/** Whether `user` is a guard's, made for the request numbered `request`. */
const madeFor = (user: unknown, request: number | undefined): boolean =>
  request !== undefined && guardUsers.read(user, undefined) === request

/** The verdicts a guard establishes besides a user: the library's own, frozen objects only. */
const VERDICTS: ReadonlySet<unknown> = new Set([
  rules.missing,
  rules.malformed,
  rules.invalid,
  rules.unavailable,
  rules.crossSite
])

/** A service of the context, by a line's key (each line's `Context.get` takes its own keys). */
const get = <A>(context: Context.Context<never>, key: unknown): A =>
  Context.get(context, key as never) as A

const getOption = <A>(context: Context.Context<never>, key: unknown): Option.Option<A> =>
  Context.getOption(context, key as never) as Option.Option<A>

/** The resolve of a line: `resolve(settings, next)` calls `next` with the request's resolution. */
export const resolver = <Session extends object>(
  line: AuthDialect<Session>,
  keys: ResolutionKeys
) => {
  type Resolution = rules.Resolution<User<Session>>
  type Answer = Exit.Exit<Option.Option<Session>, SessionValidatorUnavailable>

  /**
   * A request's user: its own frozen object and its own `Redacted` id, whatever the validator
   * holds. A handler that wipes its id (`Redacted` hygiene) touches no other request's; one that
   * writes to its user or its session gets a `TypeError`. `undefined` when the answer cannot be
   * read (an application's own validator, a getter that throws).
   */
  const authenticated = (
    answer: Session,
    id: Redacted.Redacted<string>,
    source: unknown
  ): rules.Authenticated<User<Session>> | undefined => {
    let session: Session
    try {
      session = rules.ownSession(answer)
    } catch {
      return undefined
    }
    const user: User<Session> = guardUsers.stamp(
      {
        user_id: (session as { readonly user_id: string }).user_id,
        session,
        session_id: id,
        is_guest: false
      },
      // a request without a number: its user counts for no later guard (it validates afresh)
      requestNumber(source) ?? -1
    )
    return { _tag: "Authenticated", user: Object.freeze(user) }
  }

  /**
   * What an earlier guard or middleware established on this request, read from the context: the
   * resolution a guard (router or `HttpApi` middleware) provides to what it wraps, or a
   * `CurrentUser` — when these guards made its user. Each is read once, into a resolution of its
   * own: an object in the context that changes between reads (a getter) is never trusted.
   */
  const established = (
    context: Context.Context<never>,
    source: unknown
  ): Resolution | undefined => {
    const resolution = getOption<Resolution>(context, keys.established)
    if (Option.isSome(resolution)) {
      const found = resolution.value
      if (VERDICTS.has(found)) return found
      const user = (found as { readonly user?: unknown }).user
      return madeFor(user, requestNumber(source))
        ? { _tag: "Authenticated", user: user as User<Session> }
        : undefined
    }
    const user = getOption<unknown>(context, keys.currentUser)
    return Option.isSome(user) && madeFor(user.value, requestNumber(source))
      ? { _tag: "Authenticated", user: user.value as User<Session> }
      : undefined
  }

  /**
   * Asks the validator, within `timeoutMillis` when there is one (a validator that answers within
   * it by itself needs no timer of ours). A validator that throws instead
   * of failing is unavailable, like one that fails (`Effect.suspend` makes the throw a defect). The
   * validation runs interruptible even where the app runs uninterruptibly (a bare app served by
   * `HttpServer`), so that the timeout, or the request's end, stops a validator that hangs.
   */
  const validate = (
    validator: SessionValidatorServiceOf<Session>,
    id: Redacted.Redacted<string>,
    timeoutMillis: number | undefined
  ): Effect.Effect<Answer> => {
    const validation = Effect.suspend(() => validator.validate(id))
    const bound = validator.answersWithinMillis
    const limited =
      timeoutMillis === undefined || (bound !== undefined && bound <= timeoutMillis)
        ? validation
        : line.timeout(
            validation,
            timeoutMillis,
            () => new SessionValidatorUnavailable({ reason: "Timeout" })
          )
    return Effect.exit(Effect.interruptible(limited))
  }

  /**
   * One short line per validation that could not answer: the reason only. Neither the cause (a
   * lookup's error may quote the id) nor a description (an auth service's answer may hold it) nor
   * a stack trace goes into the log.
   */
  const logUnavailable = (cause: Cause.Cause<SessionValidatorUnavailable>) => {
    const reason = line.client.failureOf(cause)?.reason ?? "Defect"
    return Effect.logWarning(`Session validator unavailable (${reason})`).pipe(
      Effect.annotateLogs("module", "svc-sdk/Auth")
    )
  }

  /** An answer whose session could not be read: unavailable, logged as the others are. */
  const logUnreadable = Effect.logWarning("Session validator unavailable (InvalidResponse)").pipe(
    Effect.annotateLogs("module", "svc-sdk/Auth")
  )

  const answer = <A, E, R>(
    exit: Answer,
    id: Redacted.Redacted<string>,
    source: unknown,
    next: (resolution: Resolution) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R> => {
    if (Exit.isSuccess(exit)) {
      if (Option.isNone(exit.value)) return next(rules.invalid)
      const resolution = authenticated(exit.value.value, id, source)
      if (resolution !== undefined) return next(resolution)
      return Effect.andThen(logUnreadable, next(rules.unavailable))
    }
    return Effect.andThen(logUnavailable(exit.cause), next(rules.unavailable))
  }

  /**
   * The established resolution if an earlier guard set one (`known`), else a fresh one: read the
   * id, and ask the validator only for a well-formed one. The caller's requirements gain the
   * line's `SessionValidator` and `HttpServerRequest`, which the line's binding names.
   */
  return <A, E, R>(
    settings: GuardSettings,
    next: (resolution: Resolution, known: boolean) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R> =>
    line.contextWithEffect((context) => {
      const request = get<RequestOf>(context, line.serverRequest)
      const reading = rules.readRequest(request, settings)
      const known = established(context, request.source)
      // what an earlier guard established holds as far as this guard's own reading agrees: its
      // sources (`query: false`, its header) and its cross-site check apply whatever ran before
      // it, and a request is still validated once
      if (known !== undefined) {
        if (reading._tag === "CrossSite") return next(reading, false)
        if (known._tag === "Authenticated") {
          if (reading._tag !== "Found") return next(reading, false)
          if (Redacted.value(known.user.session_id) === reading.id) return next(known, true)
          // another id than the one established (this guard reads elsewhere): validated afresh
        } else if (reading._tag !== "Found" || known._tag !== "Missing") {
          // a guest stays one (a verdict reused for an id read elsewhere fails closed)
          return next(known, true)
        }
        // else an id where the earlier guard found none: validated afresh
      }
      if (reading._tag !== "Found") return next(reading, false)
      const provided = getOption<SessionValidatorServiceOf<Session>>(context, keys.validator)
      if (Option.isNone(provided))
        return Effect.andThen(logMissingValidator, next(rules.unavailable, false))
      const validator = provided.value
      const onAnswer = (resolution: Resolution) => next(resolution, false)
      // redacted from here on: the id never reaches a log, an error or a span
      const id = Redacted.make(reading.id)
      // an answer the validator holds already (memory, a cache hit) costs no fiber and no timer
      const held = knownAnswer(validator, id)
      if (held !== undefined) return answer(held, id, request.source, onAnswer)
      return Effect.flatMap(validate(validator, id, settings.timeoutMillis), (exit) =>
        answer(exit, id, request.source, onAnswer)
      )
    })
}

/**
 * A guard whose handler has no `SessionValidator` (the types demand one: a cast got past them) is a
 * mistake in the application, logged as an error that says how to mend it; the request is answered
 * as if the validator were unavailable.
 */
const logMissingValidator = Effect.logError(
  "No SessionValidator is provided to a guarded handler: provide one of its layers " +
    "(SessionValidator.memory, .fromPromise, .http, or SessionStore.validator) with Layer.provide " +
    "or Effect.provide. The request is answered 500."
).pipe(Effect.annotateLogs("module", "svc-sdk/Auth"))

/** The validator's `known` answer as an `Exit`; a `known` that throws is unavailable. */
const knownAnswer = <Session>(
  validator: SessionValidatorServiceOf<Session>,
  id: Redacted.Redacted<string>
): Exit.Exit<Option.Option<Session>, SessionValidatorUnavailable> | undefined => {
  if (validator.known === undefined) return undefined
  try {
    const known = validator.known(id)
    return Option.isSome(known) ? Exit.succeed(known.value) : undefined
  } catch (cause) {
    return Exit.die(cause)
  }
}
