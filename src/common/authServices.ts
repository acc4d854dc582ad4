/**
 * The services of the server half, declared once for both Effect lines: a session validator and a
 * session store. Each line names them with its own `SessionData` and `Duration` input.
 */
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import type { SessionLifetimesOf } from "../core/authOptions.js"
import type { SessionDataInput } from "../core/authRules.js"
import type { SessionStoreError } from "./SessionStoreError.js"
import type { SessionValidatorUnavailable } from "./SessionValidatorUnavailable.js"

/**
 * Validates a session id: `Some(session)` when valid, `None` when not, a
 * `SessionValidatorUnavailable` failure when it cannot tell.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionValidatorServiceOf<Session> {
  readonly validate: (
    id: Redacted.Redacted<string>
  ) => Effect.Effect<Option.Option<Session>, SessionValidatorUnavailable>
  /**
   * The answer `validate` would give, when the validator holds it already (a table in memory, a
   * cache hit): `Some(answer)` at once, without running an Effect; `None` when it has to look the
   * id up. Optional: the guards answer from it with no fiber, timer or Effect per request, and
   * call `validate` otherwise. `memory` and `cached` have it.
   */
  readonly known?:
    | ((id: Redacted.Redacted<string>) => Option.Option<Option.Option<Session>>)
    | undefined
  /**
   * How long `validate` takes at most, in milliseconds, when the validator bounds itself (one
   * Redis command under its own `commandTimeout`, say). Optional: a guard whose `timeout` is no
   * shorter sets no timer of its own, which saves a fiber and a timer per request.
   * `SessionStore.validator` over `layerRedis` has it.
   */
  readonly answersWithinMillis?: number | undefined
}

/**
 * A session store's operations.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionStoreServiceOf<Duration, Session> {
  /**
   * How long `touch` takes at most, in milliseconds, when the store bounds it itself (the Redis
   * store: its `commandTimeout`, for a read and the script that may follow it);
   * `SessionStore.validator` passes it on.
   */
  readonly answersWithinMillis?: number | undefined
  /**
   * Issues a fresh random id (256 bits, base64url) for `session`. It ends `ttl` after this call, or
   * earlier when it goes unused for `idleTimeout` (the store's defaults when omitted).
   */
  readonly create: (
    session: SessionDataInput,
    options?: SessionLifetimesOf<Duration>
  ) => Effect.Effect<Redacted.Redacted<string>, SessionStoreError>
  /** The session of a live id; `None` for unknown, revoked or expired ids. It does not count as use. */
  readonly get: (
    id: Redacted.Redacted<string>
  ) => Effect.Effect<Option.Option<Session>, SessionStoreError>
  /**
   * Uses a session: like `get`, and a live session's idle deadline moves to `idleTimeout` from now
   * (never past its absolute end). `SessionStore.validator` touches every id it validates. A use is
   * written down only when the last one recorded is a twentieth of `idleTimeout` old, or a minute
   * (the shorter; a minute without `idleTimeout`): a session in steady use costs one write a
   * minute, not one per request, and its idle deadline is never more than 5% early.
   */
  readonly touch: (
    id: Redacted.Redacted<string>
  ) => Effect.Effect<Option.Option<Session>, SessionStoreError>
  /** Ends a session; revoking an unknown id succeeds. */
  readonly revoke: (id: Redacted.Redacted<string>) => Effect.Effect<void, SessionStoreError>
  /** Ends every session of `userId` (sign out everywhere); answers how many were live. */
  readonly revokeUser: (userId: string) => Effect.Effect<number, SessionStoreError>
  /**
   * A new id for the session of a live `id`, its data, handle and lifetimes kept: the old id stops
   * working at the same instant (one atomic step on Redis). `None` when `id` is not live. Rotate at
   * login and at every change of privilege, so that an id planted before (session fixation) or seen
   * before is worth nothing after.
   */
  readonly rotate: (
    id: Redacted.Redacted<string>
  ) => Effect.Effect<Option.Option<Redacted.Redacted<string>>, SessionStoreError>
  /**
   * The handle of a live `id`'s session, as `list` shows it (say, to mark the caller's own device
   * in a device list); `None` when `id` is not live. It does not count as use. The handle stays the
   * same through `rotate`, and reveals neither the id nor its stored hash.
   */
  readonly handleOf: (
    id: Redacted.Redacted<string>
  ) => Effect.Effect<Option.Option<string>, SessionStoreError>
  /** The live sessions of `userId` (a device list), oldest first. */
  readonly list: (
    userId: string
  ) => Effect.Effect<ReadonlyArray<SessionInfoOf<Session>>, SessionStoreError>
  /**
   * Ends the session of `userId` with this `handle` (from `list`): `true` when it was one of that
   * user's live sessions, `false` otherwise (another user's handle ends nothing).
   */
  readonly revokeHandle: (
    userId: string,
    handle: string
  ) => Effect.Effect<boolean, SessionStoreError>
  /**
   * Ends every session of the user of a live `id` but that one ("sign out other devices");
   * answers how many were live, 0 for an id that is not live.
   */
  readonly revokeOthers: (id: Redacted.Redacted<string>) => Effect.Effect<number, SessionStoreError>
}

/**
 * A live session, as `SessionStore.list` shows it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionInfoOf<Session> {
  /**
   * Names the session for `revokeHandle`: opaque, and safe to show (it reveals neither the id nor
   * the hash the store keeps). It stays the same when the session's id is rotated.
   */
  readonly handle: string
  readonly createdAt: Date
  /**
   * The last `touch` written down (a request the store's validator let through): within a minute,
   * or a twentieth of `idleTimeout`, of the last use.
   */
  readonly lastSeenAt: Date
  /** When the session ends unless touched: the earlier of its absolute end and its idle deadline. */
  readonly expiresAt: Date
  readonly data: Session
}
