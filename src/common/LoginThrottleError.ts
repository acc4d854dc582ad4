/**
 * The error of a login throttle's store, the same on both Effect lines.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * The throttle's store could not be read or written (Redis is away, or did not answer in time). A
 * `check` that fails so does not let the attempt through: the throttle fails closed.
 *
 * @since 0.1.0
 * @category errors
 */
export class LoginThrottleError extends Data.TaggedError("LoginThrottleError")<{
  readonly operation: "connect" | "check" | "failure" | "success"
  readonly description?: string
  readonly cause?: unknown
}> {
  override get message(): string {
    const base = messages[this.operation]
    return this.description === undefined ? base : `${base}: ${this.description}`
  }
}

const messages: Record<LoginThrottleError["operation"], string> = {
  connect: "Login throttle failed to connect",
  check: "Login throttle failed to check attempts",
  failure: "Login throttle failed to count a failure",
  success: "Login throttle failed to clear attempts"
}
