/**
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * A store could not be read or written. It never carries a session id.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionStoreError extends Data.TaggedError("SessionStoreError")<{
  readonly operation: "create" | "get" | "revoke"
  readonly cause?: unknown
}> {
  override get message(): string {
    return `Session store failed to ${this.operation} a session`
  }
}
