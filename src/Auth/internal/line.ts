/**
 * What the shared server half (`common/validators.ts`, `httpValidator.ts`, `resolution.ts`) needs
 * of Effect 4: its `SessionData` decoding, clock and `Cache`, and the functions it names its own way.
 */
import * as Cache from "effect/Cache"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import type { AuthLine } from "../../common/authLine.js"
import { client as values } from "../../internal/dialect.js"
import { SessionData } from "../SessionData.js"

const decode = Schema.decodeUnknownResult(SessionData)

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** Where a value failed to decode, without the values found there (they may quote the id). */
const pathsOf = (issue: SchemaIssue.Issue): string =>
  [
    ...new Set(
      formatter(issue).issues.map((found) =>
        found.path === undefined || found.path.length === 0
          ? "the root"
          : found.path
              .map((segment) => String(typeof segment === "object" ? segment.key : segment))
              .join(".")
      )
    )
  ].join(", ")

export const line: AuthLine<SessionData> = {
  durationMillis: values.durationMillis,
  decodeSession: (value) => {
    const decoded = decode(value)
    return decoded._tag === "Success"
      ? { _tag: "Session", session: decoded.success }
      : {
          _tag: "NotSession",
          paths: pathsOf(decoded.failure.issue),
          message: decoded.failure.message
        }
  },
  clock: Effect.map(Clock.Clock, (clock) => () => clock.currentTimeMillisUnsafe()),
  cache: (lookup, capacity, timeToLive) =>
    Effect.map(
      Cache.makeWith(lookup, { capacity, timeToLive }),
      (cache) => (key) =>
        Cache.get(cache, key).pipe(Effect.tapCause(() => Cache.invalidate(cache, key)))
    ),
  contextWithEffect: Effect.contextWith,
  timeoutFail: (self, millis, onTimeout) =>
    Effect.timeoutOrElse(self, { duration: millis, orElse: () => Effect.fail(onTimeout()) }),
  failureOf: Cause.findErrorOption
}
