/**
 * The error of a session validator that could not answer.
 *
 * @since 0.1.0
 */
export {
  SessionValidatorUnavailable,
  type SessionValidatorUnavailableReason
} from "../common/SessionValidatorUnavailable.js"
