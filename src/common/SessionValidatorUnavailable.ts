/**
 * The error of a session validator that could not answer, the same on both Effect lines.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type { SessionValidatorUnavailableReason } from "../core/authService.js"

export type { SessionValidatorUnavailableReason }

/**
 * The validator could not say whether a session is valid. Guards answer 500
 * `Authentication service unavailable`; `optionalAuth` treats the request as a guest.
 * It never carries the session id.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionValidatorUnavailable extends Data.TaggedError("SessionValidatorUnavailable")<{
  readonly reason: SessionValidatorUnavailableReason
  readonly description?: string
  readonly cause?: unknown
}> {
  override get message(): string {
    const base = `Session validator unavailable (${this.reason})`
    return this.description === undefined ? base : `${base}: ${this.description}`
  }
}
