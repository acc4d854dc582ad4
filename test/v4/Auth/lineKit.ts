/**
 * Effect 4's side of test/Auth/lineKit.ts (see there): the shared Auth tests get this module in
 * its place on the Effect 4 run (toolchains/effect4/vitest.config.ts).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as Redacted from "effect/Redacted"
import * as References from "effect/References"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import {
  type AuthContext,
  AuthMiddleware,
  type CurrentUser,
  type SessionValidator
} from "../../../src/Auth/index.js"
import { serveRoutes as serveRouteLayers } from "./fixtures.js"

/** The line's test fixtures: a probe validator, a real server, a client that calls it. */
export {
  BOOM,
  call,
  DOWN,
  makeProbe,
  type Probe,
  probeValidator,
  type Reply,
  SESSIONS,
  ServerLayer,
  SLOW,
  serve
} from "./fixtures.js"
export { recordingTracer } from "./recordingTracer.js"
export {
  FetchHttpClient,
  Headers,
  HttpClient,
  HttpClientRequest,
  HttpClientResponse,
  HttpServer,
  HttpServerRequest,
  HttpServerResponse,
  NodeHttpClient,
  TestClock
}

/** Which line runs the test. */
export const LINE = 4 as 3 | 4

/** `Effect.fork` (Effect 3), `Effect.forkChild` (Effect 4). */
export const fork = Effect.forkChild

/** `Effect.async` (Effect 3), `Effect.callback` (Effect 4). */
export const callback = Effect.callback

/** `self` yielding to the scheduler every `ops` operations (Effect 4's default: 2048). */
export const withMaxOpsBeforeYield = <A, E, R>(self: Effect.Effect<A, E, R>, ops: number) =>
  Effect.provideService(self, References.MaxOpsBeforeYield, ops)

/** `self` failing with `onTimeout()` after `duration`. */
export const timeoutFail = <A, E, R, E2>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Input,
  onTimeout: () => E2
): Effect.Effect<A, E | E2, R> =>
  Effect.timeoutOrElse(self, { duration, orElse: () => Effect.fail(onTimeout()) })

/** `self` on a `Clock` that reads `now()` and whose timers never fire: the `Clock` service. */
export const withClockAt = <A, E, R>(self: Effect.Effect<A, E, R>, now: () => number) => {
  const nanos = () => BigInt(now()) * 1_000_000n
  return Effect.provideService(self, Clock.Clock, {
    currentTimeMillisUnsafe: now,
    currentTimeMillis: Effect.sync(now),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: nanos,
    monotonicTimeNanos: Effect.sync(nanos),
    sleep: () => Effect.never
  } as Clock.Clock)
}

/** Whether `fiber` is still running. */
export const isRunning = <A, E>(fiber: Fiber.Fiber<A, E>): Effect.Effect<boolean> =>
  Effect.sync(() => fiber.pollUnsafe() === undefined)

/** `Layer.unwrapEffect` (Effect 3), `Layer.unwrap` (Effect 4). */
export const unwrapLayer = Layer.unwrap

/** The platform's `FileSystem` and `Path` on Node: `NodeServices.layer` on Effect 4. */
export const NodePlatform = NodeServices.layer

const failure = (method: string) =>
  Effect.fail(new KeyValueStore.KeyValueStoreError({ message: "disk gone", method }))

/** A `KeyValueStore` whose reads and writes fail, as a disk that is gone. */
export const brokenKeyValueStore: Layer.Layer<KeyValueStore.KeyValueStore> = Layer.succeed(
  KeyValueStore.KeyValueStore,
  KeyValueStore.makeStringOnly({
    get: () => failure("get"),
    set: () => failure("set"),
    remove: () => Effect.void,
    clear: Effect.void,
    size: Effect.succeed(0),
    keys: Effect.succeed([])
  })
)

/**
 * Until a timer a fiber started beside is armed: Effect 4's TestClock does not list its sleepers,
 * so the fibers get a few turns of the event loop. A timer not yet armed would not fire on
 * `adjust`, and the tests that wait for one would fail.
 */
export const timerArmed: Effect.Effect<void> = Effect.promise(async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
})

/** How many sleeps the TestClock holds; `undefined` where the line does not list them. */
export const pendingSleeps: Effect.Effect<number | undefined> = Effect.succeed(undefined)

/** One turn for the other fibers. */
/** A service key of this line by its key string (`Context.Service`), as the library makes its own. */
export const serviceKey = (key: string) => Context.Service<unknown>(key)

/** Wipes a redacted value, as an application's hygiene does (`Redacted.wipeUnsafe`). */
export const wipe = (value: Redacted.Redacted<string>): boolean => Redacted.wipeUnsafe(value)

export const yieldNow: Effect.Effect<void> = Effect.yieldNow

/** `HttpServerResponse.unsafeJson` (Effect 3), `jsonUnsafe` (Effect 4). */
export const json = (body: unknown, options?: { readonly status?: number }) =>
  HttpServerResponse.jsonUnsafe(body, options)

/** A text response, as an Effect a guard can wrap. */
export const text = (body: string) => Effect.succeed(HttpServerResponse.text(body))

/** A logger that writes each line as the logfmt logger does into `lines`, in place of the default one. */
export const logfmtLines = (lines: Array<string>): Layer.Layer<never> =>
  Logger.layer([
    Logger.make((options) => {
      lines.push(Logger.formatLogFmt.log(options))
    })
  ])

/** A request to the handler in process. */
export const requestOf = (request: Request) => HttpServerRequest.fromWeb(request)

/** A route of {@link serveRoutes}; `Provided` is what a router-wide guard gives its handler. */
export interface Route<Provided = never> {
  readonly method: "*" | "GET" | "POST" | "DELETE"
  readonly path: string
  readonly handler: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    unknown,
    SessionValidator | HttpServerRequest.HttpServerRequest | Scope.Scope | Provided
  >
}

const layerOf = (routes: ReadonlyArray<Route<CurrentUser | AuthContext>>) =>
  Layer.mergeAll(
    ...(routes.map(({ method, path, handler }) =>
      HttpRouter.add(method, path as HttpRouter.PathInput, handler)
    ) as [Layer.Layer<never, never, HttpRouter.HttpRouter>])
  )

/** Serves `routes` (an `HttpRouter` of the line) on the test server for the rest of the scope. */
export const serveRoutes = (
  routes: ReadonlyArray<Route>,
  validator: Layer.Layer<SessionValidator>
) => serveRouteLayers(layerOf(routes), validator)

/**
 * {@link serveRoutes} behind a router-wide `requireAuth()`: `AuthMiddleware.requireAuth()`'s layer
 * on Effect 4.
 */
export const serveRoutesBehindRequireAuth = (
  routes: ReadonlyArray<Route<CurrentUser | AuthContext>>,
  validator: Layer.Layer<SessionValidator>
) =>
  serveRouteLayers(
    layerOf(routes).pipe(Layer.provide(AuthMiddleware.requireAuth().layer)) as ReturnType<
      typeof layerOf
    >,
    validator
  )

/** An app as a web handler (Request in, Response out): `HttpEffect.toWebHandler` on Effect 4. */
export const toWebHandler = <E>(
  app: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E,
    HttpServerRequest.HttpServerRequest | Scope.Scope
  >
): ((request: Request) => Promise<Response>) => HttpEffect.toWebHandler(app)

/**
 * `routes` (an `HttpRouter` of the line) as a web handler, and how to dispose of it:
 * `HttpRouter.toWebHandler` on Effect 4.
 */
export const routesWebHandler = (
  routes: ReadonlyArray<Route>,
  validator: Layer.Layer<SessionValidator>
) =>
  HttpRouter.toWebHandler(layerOf(routes).pipe(HttpRouter.provideRequest(validator)), {
    disableLogger: true
  })

/** The line's router of layers, where `AuthMiddleware` applies: `HttpRouter` on Effect 4. */
export { HttpRouter as LayerRouter }
