/**
 * The error of a session store, the same on both Effect lines.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * A store could not be read or written. It never carries a session id. `description` says more when
 * the store knows more, e.g. that Redis did not answer within `connectTimeout`.
 *
 * @since 0.1.0
 * @category errors
 */
export class SessionStoreError extends Data.TaggedError("SessionStoreError")<{
  readonly operation:
    | "connect"
    | "create"
    | "get"
    | "touch"
    | "revoke"
    | "revokeUser"
    | "rotate"
    | "handleOf"
    | "list"
    | "revokeHandle"
    | "revokeOthers"
  readonly description?: string
  readonly cause?: unknown
}> {
  override get message(): string {
    const base = messages[this.operation]
    return this.description === undefined ? base : `${base}: ${this.description}`
  }
}

const messages: Record<SessionStoreError["operation"], string> = {
  connect: "Session store failed to connect",
  create: "Session store failed to create a session",
  get: "Session store failed to get a session",
  touch: "Session store failed to touch a session",
  revoke: "Session store failed to revoke a session",
  revokeUser: "Session store failed to revoke the sessions of a user",
  rotate: "Session store failed to rotate a session",
  handleOf: "Session store failed to read the handle of a session",
  list: "Session store failed to list the sessions of a user",
  revokeHandle: "Session store failed to revoke a session by its handle",
  revokeOthers: "Session store failed to revoke the other sessions of a user"
}
