/**
 * The session id rule the client applies to the ids it is given (the same as the server's and
 * storage detection's: 1–512 visible ASCII characters).
 */
import { isValidSessionId } from "./sessionId.js"

/** Checks an id given to `setSessionId` or `config.sessionId`: a bad one throws a `TypeError`. */
export const checkSessionId = (id: unknown): string => {
  if (!isValidSessionId(id)) {
    throw new TypeError(
      "sessionId must be 1 to 512 visible ASCII characters (0x21–0x7E): no whitespace, control characters or non-ASCII"
    )
  }
  return id
}
