/**
 * The login answer, as both stories decode it on Effect 3: the session id arrives `Redacted`, so it
 * prints as `<redacted>` and cannot be logged by mistake. (On Effect 4, `../login.ts`:
 * `Schema.RedactedFromValue` decodes from the string there, `Schema.Redacted` does here.)
 */
import * as Schema from "effect/Schema"

export const LoginData = Schema.Struct({
  user_id: Schema.String,
  name: Schema.String,
  user_type: Schema.String,
  session_id: Schema.Redacted(Schema.String),
  /** The new device's refresh token (none when the login rotated a session: same device). */
  refresh_token: Schema.optional(Schema.Redacted(Schema.String))
})

/** The answer of `POST /refresh`: the new id, the device's next refresh token, the server's count. */
export const RefreshedData = Schema.Struct({
  session_id: Schema.Redacted(Schema.String),
  refresh_token: Schema.Redacted(Schema.String),
  refreshes: Schema.Number
})
