/**
 * Session refresh (SPEC 4.9), for both faces and both lines. A request whose 401 answers the
 * client's session waits for one refresh shared by every such request (single flight: the
 * session state holds the one under way), then is sent once more with the new id. The refresh
 * runs on a fiber of its own, bounded by the timeout of the request that started it, and calls
 * the endpoint through a client whose requests never wait for a refresh: nothing it sends can
 * wait for itself.
 *
 * Loaded by the first 401 a refresh may answer (an app that never refreshes never loads it), and
 * handed what it uses of Effect and of the client (`RefreshKit`): it imports nothing, so a bundle
 * splits none of the code it shares with the client into chunks of their own.
 */
import type * as CauseT from "effect/Cause"
import type * as Eff from "effect/Effect"
import type * as ExitT from "effect/Exit"
import type * as RedactedT from "effect/Redacted"
import type { ApiFailure } from "../core/ApiResponse.js"
import type { isValidSessionId } from "../core/sessionId.js"
import type { ClientState, within } from "./client.js"
import type { HttpError } from "./SvcError.js"
import type {
  forgetSession,
  persistSession,
  RefreshFlight,
  rememberSession,
  unpersistSession
} from "./session.js"

/** What the refresh uses of Effect and of the client, handed over by the client. */
export interface RefreshKit {
  readonly Effect: Pick<
    typeof Eff,
    | "as"
    | "exit"
    | "fail"
    | "flatMap"
    | "interruptible"
    | "map"
    | "succeed"
    | "suspend"
    | "sync"
    | "uninterruptible"
  >
  readonly isSuccess: typeof ExitT.isSuccess
  readonly squash: typeof CauseT.squash
  readonly Redacted: Pick<typeof RedactedT, "isRedacted" | "make" | "value">
  readonly isValidSessionId: typeof isValidSessionId
  readonly within: typeof within
  readonly forgetSession: typeof forgetSession
  readonly persistSession: typeof persistSession
  readonly rememberSession: typeof rememberSession
  readonly unpersistSession: typeof unpersistSession
}

/** A request's 401 that a refresh may answer, and how to go on. */
export interface Expired<A, E> {
  /** The id the request carried, which the 401 answers. */
  readonly sent: RedactedT.Redacted<string>
  /** The 401, as the request's own outcome when nothing better comes. */
  readonly error: HttpError
  /** The 401 as `refreshSession` gets it. */
  readonly failed: ApiFailure
  /** The request's `timeout`, which bounds a refresh it starts; `0`: none. */
  readonly timeoutMillis: number
  /** The session id now, if any (the application's code it runs is bounded by the caller). */
  readonly current: Eff.Effect<RedactedT.Redacted<string> | undefined, E>
  /** The request sent once more, with this id. */
  readonly resend: (id: RedactedT.Redacted<string>) => Eff.Effect<A, E>
}

/** The refresh's programs, over what `kit` hands over. */
export const makeRefresh = (kit: RefreshKit) => {
  const { Effect, isSuccess, squash, Redacted } = kit
  const { forgetSession, persistSession, rememberSession, unpersistSession, isValidSessionId } = kit
  const within = kit.within

  /**
   * What follows a 401 for the client's session: the outcome of the request sent once more with
   * the current id — after the refresh under way, or one it starts, when the id is still the one
   * the 401 answered — or the 401 itself when the session is gone or could not be renewed.
   */
  const afterExpiry = <A, E>(
    state: ClientState,
    expired: Expired<A, E>
  ): Eff.Effect<A, E | HttpError> =>
    Effect.suspend(() => {
      const under = state.session.refreshing
      if (under !== undefined) return afterFlight(state, under, expired)
      // the lookup may have let another request start the refresh
      return withCurrent(expired, () =>
        Effect.flatMap(joinOrStart(state, expired), (flight) => afterFlight(state, flight, expired))
      )
    })

  /**
   * The request by the session as it is now: its own 401 when there is none, sent once more when
   * it is another id than the one the 401 answered, else `same`.
   */
  const withCurrent = <A, E>(
    expired: Expired<A, E>,
    same: () => Eff.Effect<A, E | HttpError>
  ): Eff.Effect<A, E | HttpError> =>
    Effect.flatMap(expired.current, (current) => {
      if (current === undefined) return Effect.fail(expired.error)
      if (Redacted.value(current) !== Redacted.value(expired.sent)) return expired.resend(current)
      return same()
    })

  /**
   * The request, once `flight` is over: sent once more with its id, or its own 401; when the
   * application set or cleared the session meanwhile, by the session as it is now.
   */
  const afterFlight = <A, E>(
    state: ClientState,
    flight: RefreshFlight,
    expired: Expired<A, E>
  ): Eff.Effect<A, E | HttpError> =>
    Effect.flatMap(
      outcomeOf(state, flight),
      (id): Eff.Effect<A, E | HttpError> =>
        flight.superseded
          ? withCurrent(expired, () => Effect.fail(expired.error))
          : id === null
            ? Effect.fail(expired.error)
            : expired.resend(id)
    )

  /** Waits for the flight's answer. */
  const outcomeOf = (
    state: ClientState,
    flight: RefreshFlight
  ): Eff.Effect<RedactedT.Redacted<string> | null> =>
    state.line.callback((resume) => {
      if (flight.outcome !== undefined) return resume(Effect.succeed(flight.outcome))
      const waiter = (outcome: RedactedT.Redacted<string> | null) => resume(Effect.succeed(outcome))
      flight.waiters.add(waiter)
      return Effect.sync(() => {
        flight.waiters.delete(waiter)
      })
    })

  /**
   * The refresh under way, or a new one: the slot is taken in the same step as it is checked, and
   * the refresh's fiber is started before anything can interrupt the request.
   */
  const joinOrStart = <A, E>(
    state: ClientState,
    expired: Expired<A, E>
  ): Eff.Effect<RefreshFlight> =>
    Effect.uninterruptible(
      Effect.suspend(() => {
        const under = state.session.refreshing
        if (under !== undefined) return Effect.succeed(under)
        const flight: RefreshFlight = { outcome: undefined, superseded: false, waiters: new Set() }
        state.session.refreshing = flight
        // the refresh itself stays interruptible: its timeout interrupts it
        const program = Effect.interruptible(refresh(state, flight, expired))
        return Effect.map(state.line.forkInContext(program), (start) => {
          start()
          return flight
        })
      })
    )

  /**
   * Runs `refreshSession` once: a new id is set (`setSessionId`, storage included) before the
   * waiting requests go on; no id, a failure or a timeout clears the session and goes to `onError`.
   */
  const refresh = <A, E>(
    state: ClientState,
    flight: RefreshFlight,
    expired: Expired<A, E>
  ): Eff.Effect<void> => {
    const run =
      state.refresh === undefined ? Effect.succeed(undefined) : state.refresh(expired.failed)
    const millis = expired.timeoutMillis
    const bounded =
      millis > 0 ? within(state.line, run, millis, () => new RefreshTimeout(millis)) : run
    return Effect.flatMap(Effect.exit(bounded), (exit) => {
      const answer = isSuccess(exit) ? newId(exit.value) : failureOf(state, exit.cause)
      // the session it renewed was set or cleared meanwhile: the answer changes nothing of it
      const settled = flight.superseded
        ? Effect.sync(() => {
            if (answer instanceof Error) state.report(answer)
            return null
          })
        : answer instanceof Error
          ? Effect.flatMap(
              Effect.sync(() => {
                state.report(answer)
                forgetSession(state.session)
              }),
              () => Effect.as(unpersistSession(state.session), null)
            )
          : Effect.flatMap(
              Effect.sync(() => rememberSession(state.session, answer)),
              () =>
                Effect.flatMap(persistSession(state.session, answer), () =>
                  // set or cleared while its id was being stored: storage gets the session as
                  // it is now, after that write
                  flight.superseded ? Effect.as(storeCurrent(state), null) : Effect.succeed(answer)
                )
            )
      return Effect.map(settled, (outcome) => {
        flight.outcome = outcome
        if (state.session.refreshing === flight) state.session.refreshing = undefined
        for (const waiter of flight.waiters) waiter(outcome)
        flight.waiters.clear()
      })
    })
  }

  /** Storage as the session is now: the id set, or none after `clearSession`. */
  const storeCurrent = (state: ClientState): Eff.Effect<void> => {
    const manual = state.session.manual
    return state.session.cleared || manual === undefined
      ? unpersistSession(state.session)
      : persistSession(state.session, manual)
  }

  /** The id `refreshSession` answered, or why there is none (the message never holds the value). */
  const newId = (value: unknown): RedactedT.Redacted<string> | Error => {
    if (value === null || value === undefined) {
      return new Error("refreshSession answered no session id: the session is cleared")
    }
    const id = Redacted.isRedacted(value) ? Redacted.value(value) : value
    if (isValidSessionId(id)) return Redacted.make(id)
    return new TypeError(
      "refreshSession answered a value that is not a session id (1 to 512 visible ASCII characters)"
    )
  }

  /**
   * The refresh's failure or defect as one `Error` of its own (the failure may be an error a
   * request of the refresh already reported); its timeout as it is.
   */
  const failureOf = (state: ClientState, cause: CauseT.Cause<unknown>): Error => {
    const failure = state.line.failureOf(cause) ?? squash(cause)
    if (failure instanceof RefreshTimeout) return failure
    const message = failure instanceof Error ? failure.message : String(failure)
    return new Error(`refreshSession failed: ${message}`, { cause: failure })
  }

  /** The refresh took longer than the request's timeout. */
  class RefreshTimeout extends Error {
    constructor(millis: number) {
      super(`refreshSession timed out after ${millis} ms`)
    }
  }

  return { afterExpiry }
}
