/**
 * Effect 4's dialect for the server half: what the guards, validators and stores (`src/common/`)
 * need of Effect 4 and `effect/http` that Effect 3 spells otherwise, member for member in the order
 * of `common/dialect.ts`'s `AuthDialect`, as `src/v3/internal/auth.ts` gives Effect 3's.
 */
import * as Cache from "effect/Cache"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerRespondable from "effect/http/HttpServerRespondable"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import * as Semaphore from "effect/Semaphore"
import { SessionData } from "../Auth/SessionData.js"
import type { AuthDialect } from "../common/dialect.js"
import { sessionDecoded } from "../core/authRules.js"
import { client } from "./dialect.js"

const decode = /*#__PURE__*/ Schema.decodeUnknownResult(SessionData)

const formatter = /*#__PURE__*/ SchemaIssue.makeFormatterStandardSchemaV1()

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

/**
 * `effect/persistence`'s `KeyValueStore` service, by its key: the same service, without loading
 * `effect/persistence` (and the SQL modules it brings) when `svc-sdk/Auth` is imported.
 */
const KeyValueStoreService = /*#__PURE__*/ Context.Service<KeyValueStore.KeyValueStore>(
  "effect/persistence/KeyValueStore"
)

/** `Cache-Control: no-store` on a response that has no `Cache-Control` of its own. */
const withNoStore = (response: HttpServerResponse.HttpServerResponse) =>
  response.headers["cache-control"] === undefined
    ? HttpServerResponse.setHeader(response, "cache-control", "no-store")
    : response

const noStore: HttpEffect.PreResponseHandler = (_request, response) =>
  Effect.succeed(withNoStore(response))

export const auth: AuthDialect<SessionData> = {
  client,
  timeout: (effect, millis, onTimeout) =>
    Effect.timeoutOrElse(effect, {
      duration: Duration.millis(millis),
      orElse: () => Effect.fail(onTimeout())
    }),
  decodeSession: (value) => {
    const decoded = decode(value)
    return decoded._tag === "Success"
      ? sessionDecoded(decoded.success)
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
  provideContext: (self, context) => Effect.provideContext(self, context),
  // Effect 4's provideContext costs one step: the others stay on their own
  provideThen: (self, context, onSuccess, onFailure) =>
    Effect.provideContext(self, context).pipe(
      Effect.map(onSuccess),
      Effect.onError(() => onFailure)
    ),
  serviceKey: (key) => Context.Service(key),
  makeLock: Effect.map(Semaphore.make(1), (lock) => lock.withPermits(1)),
  // removing what is already gone succeeds on Effect 4's stores
  keyValueStore: Effect.map(KeyValueStoreService, (kv) => ({
    get: kv.get,
    set: kv.set,
    remove: kv.remove
  })),
  serverRequest: HttpServerRequest.HttpServerRequest,
  errorResponse: (status, text) => HttpServerResponse.jsonUnsafe({ error: text }, { status }),
  // the guards' requirements hold the `HttpServerRequest` this needs
  noStore: HttpEffect.appendPreResponseHandler(noStore) as Effect.Effect<void>,
  withNoStore: (response) => withNoStore(response as HttpServerResponse.HttpServerResponse),
  isResponse: HttpServerResponse.isHttpServerResponse,
  setCookie: (response, name, value, options) =>
    HttpServerResponse.setCookieUnsafe(
      response as HttpServerResponse.HttpServerResponse,
      name,
      value,
      options
    ),
  respondable: {
    key: HttpServerRespondable.symbol,
    errorResponse: (status, text, headers) =>
      HttpServerResponse.jsonUnsafe({ error: text }, { status, headers })
  }
}
