/**
 * The login answer, as both stories decode it on Effect 4: the session id arrives `Redacted`, so it
 * prints as `<redacted>` and cannot be logged by mistake. (On Effect 3, `v3/login.ts`:
 * `Schema.Redacted` decodes from the string there, `Schema.RedactedFromValue` does here.)
 */
import * as Schema from "effect/Schema"

export const LoginData = Schema.Struct({
  user_id: Schema.String,
  name: Schema.String,
  user_type: Schema.String,
  session_id: Schema.RedactedFromValue(Schema.String),
  /** The new device's refresh token (none when the login rotated a session: same device). */
  refresh_token: Schema.optional(Schema.RedactedFromValue(Schema.String))
})

/** The answer of `POST /refresh`: the new id, the device's next refresh token, the server's count. */
export const RefreshedData = Schema.Struct({
  session_id: Schema.RedactedFromValue(Schema.String),
  refresh_token: Schema.RedactedFromValue(Schema.String),
  refreshes: Schema.Number
})
