/**
 * Effect 3's dialect for the server half: what the guards, validators and stores (`src/common/`)
 * need of Effect 3 and `@effect/platform` that Effect 4 spells otherwise, member for member in the
 * order of `common/dialect.ts`'s `AuthDialect`, as `src/internal/auth.ts` gives Effect 4's.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerRespondable from "@effect/platform/HttpServerRespondable"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import * as Cache from "effect/Cache"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { AuthDialect } from "../../common/dialect.js"
import { sessionDecoded } from "../../core/authRules.js"
import { SessionData } from "../Auth/SessionData.js"
import { client } from "./dialect.js"

const decode = /*#__PURE__*/ Schema.decodeUnknownEither(SessionData)

/** Where a value failed to decode, without the values found there (they may quote the id). */
const pathsOf = (error: ParseResult.ParseError): string =>
  [
    ...new Set(
      ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
        issue.path.length === 0 ? "the root" : issue.path.map(String).join(".")
      )
    )
  ].join(", ")

/** `Cache-Control: no-store` on a response that has no `Cache-Control` of its own. */
const withNoStore = (response: HttpServerResponse.HttpServerResponse) =>
  response.headers["cache-control"] === undefined
    ? HttpServerResponse.setHeader(response, "cache-control", "no-store")
    : response

const noStore: HttpApp.PreResponseHandler = (_request, response) =>
  Effect.succeed(withNoStore(response))

export const auth: AuthDialect<SessionData> = {
  client,
  timeout: (effect, millis, onTimeout) =>
    Effect.timeoutFail(effect, { duration: Duration.millis(millis), onTimeout }),
  decodeSession: (value) => {
    const decoded = decode(value)
    return decoded._tag === "Right"
      ? sessionDecoded(decoded.right)
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
  provideContext: (self, context) => Effect.provide(self, context),
  // what Effect.provide does (the services set for `self`, the fiber's own put back after it on
  // any exit, uninterruptibly), with `onSuccess` and `onFailure` in the same step after it:
  // Effect 3's provide and onError would each cost an acquire/release of their own
  provideThen: (self, context, onSuccess, onFailure) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(
        FiberRef.getAndUpdate(FiberRef.currentContext, (parent) => Context.merge(parent, context)),
        (parent) =>
          Effect.matchCauseEffect(restore(self), {
            onFailure: (cause) =>
              FiberRef.set(FiberRef.currentContext, parent).pipe(
                Effect.zipRight(onFailure),
                Effect.zipRight(Effect.failCause(cause))
              ),
            onSuccess: (answer) =>
              Effect.as(FiberRef.set(FiberRef.currentContext, parent), onSuccess(answer))
          })
      )
    ),
  serviceKey: (key) => Context.GenericTag(key),
  makeLock: Effect.map(Effect.makeSemaphore(1), (lock) => lock.withPermits(1)),
  keyValueStore: Effect.map(KeyValueStore.KeyValueStore, (kv) => ({
    get: (key: string) => Effect.map(kv.get(key), Option.getOrUndefined),
    set: kv.set,
    // removing what is already gone is not a failure
    remove: (key: string) =>
      kv.remove(key).pipe(
        Effect.catchIf(
          (error) => error._tag === "SystemError" && error.reason === "NotFound",
          () => Effect.void
        )
      )
  })),
  serverRequest: HttpServerRequest.HttpServerRequest,
  errorResponse: (status, text) => HttpServerResponse.unsafeJson({ error: text }, { status }),
  noStore: HttpApp.appendPreResponseHandler(noStore),
  withNoStore: (response) => withNoStore(response as HttpServerResponse.HttpServerResponse),
  isResponse: HttpServerResponse.isServerResponse,
  setCookie: (response, name, value, options) =>
    HttpServerResponse.unsafeSetCookie(
      response as HttpServerResponse.HttpServerResponse,
      name,
      value,
      options
    ),
  respondable: {
    key: HttpServerRespondable.symbol,
    errorResponse: (status, text, headers) =>
      HttpServerResponse.unsafeJson({ error: text }, { status, headers })
  }
}
