/**
 * What the shared server half (`common/validators.ts`, `httpValidator.ts`, `resolution.ts`) needs
 * of Effect 3: its `SessionData` decoding, clock and `Cache`, and the functions it names its own way.
 */
import * as Cache from "effect/Cache"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { AuthLine } from "../../../common/authLine.js"
import { client as values } from "../../internal/dialect.js"
import { SessionData } from "../SessionData.js"

const decode = Schema.decodeUnknownEither(SessionData)

/** Where a value failed to decode, without the values found there (they may quote the id). */
const pathsOf = (error: ParseResult.ParseError): string =>
  [
    ...new Set(
      ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
        issue.path.length === 0 ? "the root" : issue.path.map(String).join(".")
      )
    )
  ].join(", ")

export const line: AuthLine<SessionData> = {
  durationMillis: values.durationMillis,
  decodeSession: (value) => {
    const decoded = decode(value)
    return decoded._tag === "Right"
      ? { _tag: "Session", session: decoded.right }
      : {
          _tag: "NotSession",
          paths: pathsOf(decoded.left),
          message: ParseResult.TreeFormatter.formatErrorSync(decoded.left)
        }
  },
  clock: Effect.map(Effect.clock, (clock) => () => clock.unsafeCurrentTimeMillis()),
  cache: (lookup, capacity, timeToLive) =>
    Effect.map(
      Cache.makeWith({ capacity, lookup, timeToLive }),
      (cache) => (key) => cache.get(key).pipe(Effect.tapErrorCause(() => cache.invalidate(key)))
    ),
  contextWithEffect: Effect.contextWithEffect,
  timeoutFail: (self, millis, onTimeout) =>
    Effect.timeoutFail(self, { duration: millis, onTimeout }),
  failureOf: Cause.failureOption
}
