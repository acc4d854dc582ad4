/**
 * What a session validator knows about a session.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { isSessionKey, type SessionDataInput } from "../../core/authRules.js"

export type { SessionDataInput }

/**
 * Keys that would reach an object's prototype if copied onto it (`__proto__`, `constructor`,
 * `prototype`) are not extra keys: decoding drops them, so an auth service's JSON
 * `{"user_id":"m","__proto__":{"user_type":"admin"}}` is a plain user.
 */
const ExtraKey = Schema.String.pipe(Schema.filter(isSessionKey))

/**
 * The session a validator returns: `user_id` is required, `email`, `name`, `user_type` and
 * `permissions` are optional, and any other field is kept as it came — except keys named
 * `__proto__`, `constructor` or `prototype`, which are dropped so that they never change the
 * decoded object.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { SessionData } from "svc-sdk/v3/Auth"
 *
 * const session = Schema.decodeUnknownSync(SessionData)({ user_id: "u1", team: "core" })
 * // { user_id: "u1", team: "core" }
 * ```
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionData = Schema.Struct(
  {
    user_id: Schema.String,
    email: Schema.optional(Schema.String),
    name: Schema.optional(Schema.String),
    user_type: Schema.optional(Schema.String),
    permissions: Schema.optional(Schema.Array(Schema.String))
  },
  Schema.Record({ key: ExtraKey, value: Schema.Unknown })
).annotations({ identifier: "SessionData" })

/**
 * @since 0.1.0
 * @category models
 */
export type SessionData = typeof SessionData.Type
