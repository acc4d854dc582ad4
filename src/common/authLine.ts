/**
 * What the shared server half (`validators.ts`, `httpValidator.ts`, `resolution.ts` here) needs of
 * an Effect line: the few functions the two Effects spell differently, and the line's own services.
 * Each line's binding gives one (`Auth/internal/line.ts`, `v3/Auth/internal/line.ts`).
 */
import type * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import type { DurationMillis } from "../core/authOptions.js"
import type { Resolution } from "../core/authRules.js"
import type { ServerRequestHead } from "../core/crossSite.js"
import type { SessionValidatorServiceOf } from "./authServices.js"

/** A request as the guards read it: its head, cookies and URL. */
export type RequestOf = ServerRequestHead & {
  readonly cookies: Readonly<Record<string, string | undefined>>
  readonly url: string
}

/** A session decoded, or where it failed to decode (the paths only: values may quote the id). */
export type Decoded<Session> =
  | { readonly _tag: "Session"; readonly session: Session }
  | { readonly _tag: "NotSession"; readonly paths: string; readonly message: string }

/** The answer of the svc-sdk client to a `GET`, or its failure, as the HTTP validator reads them. */
export interface ClientGet {
  readonly get: (
    endpoint: string,
    options: { readonly headers: Record<string, string>; readonly responseType: "text" }
  ) => Effect.Effect<
    { readonly status: number; readonly data: unknown },
    { readonly _tag: string; readonly message: string; readonly status?: number }
  >
}

export interface AuthLine<Session> {
  readonly durationMillis: DurationMillis
  /** The line's `SessionData` decoding. */
  readonly decodeSession: (value: unknown) => Decoded<Session>
  /** The line's clock, as a function that reads it at once. */
  readonly clock: Effect.Effect<() => number>
  /**
   * Effect's `Cache` of the line over `lookup`: a failed lookup is dropped from it at once, so the
   * next `get` asks again.
   */
  readonly cache: <A, E>(
    lookup: (key: string) => Effect.Effect<A, E>,
    capacity: number,
    timeToLive: (exit: Exit.Exit<A, E>) => number
  ) => Effect.Effect<(key: string) => Effect.Effect<A, E>>
  /** `Effect.contextWithEffect` (Effect 3), `Effect.contextWith` (Effect 4). */
  readonly contextWithEffect: <A, E, R>(
    f: (context: Context.Context<never>) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
  /** `self` failing with `onTimeout()` when it takes longer than `millis`. */
  readonly timeoutFail: <A, E, R, E2>(
    self: Effect.Effect<A, E, R>,
    millis: number,
    onTimeout: () => E2
  ) => Effect.Effect<A, E | E2, R>
  /** The first failure of a cause, if any. */
  readonly failureOf: <E>(cause: Cause.Cause<E>) => Option.Option<E>
}

/** The line's services, read from a request's context. */
export interface LineServices<Session, User> {
  readonly request: (context: Context.Context<never>) => RequestOf
  readonly validator: (context: Context.Context<never>) => SessionValidatorServiceOf<Session>
  readonly currentUser: (context: Context.Context<never>) => Option.Option<User>
  readonly established: (context: Context.Context<never>) => Option.Option<Resolution<User>>
}
