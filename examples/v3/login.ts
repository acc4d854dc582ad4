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
  session_id: Schema.Redacted(Schema.String)
})
