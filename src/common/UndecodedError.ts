/**
 * A `DecodeError` that is no schema's verdict: a body that is not what it says it is (not JSON,
 * not an event stream, an event's data not JSON), or a decoder that could not be loaded. To a
 * caller it is a `DecodeError` like any other (`_tag`, `code`, fields, `instanceof`); only its
 * message differs, as "does not match the schema" would be wrong where no schema was given, or
 * where none was reached.
 */
import * as messages from "../core/messages.js"
import { DecodeError } from "./SvcError.js"

export class UndecodedError extends DecodeError {
  static {
    // what a log names (Node's `inspect`, a logger's `constructor.name`): a DecodeError
    Object.defineProperty(UndecodedError, "name", { value: "DecodeError" })
  }
  override get message(): string {
    return messages.undecodable(this)
  }
}
