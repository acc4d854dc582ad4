/**
 * What the shared Auth tests (listed in toolchains/effect4/vitest.config.ts's `shared`) need of
 * their Effect line that the two Effects spell differently: this is Effect 3's. The Effect 4 run
 * puts test/v4/Auth/lineKit.ts, with the same names, in its place.
 */

import { SystemError } from "@effect/platform/Error"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Headers from "@effect/platform/Headers"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import {
  type AuthContext,
  type CurrentUser,
  requireAuth,
  type SessionValidator
} from "../../src/v3/Auth/index.js"
import { serve } from "./fixtures.js"

export { recordingTracer } from "../support/recordingTracer.js"
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
export const LINE = 3 as 3 | 4

/** `Effect.fork` (Effect 3), `Effect.forkChild` (Effect 4). */
export const fork = Effect.fork

/** `Effect.async` (Effect 3), `Effect.callback` (Effect 4). */
export const callback = Effect.async

/** `self` yielding to the scheduler every `ops` operations (Effect 3's default: 2048). */
export const withMaxOpsBeforeYield = <A, E, R>(self: Effect.Effect<A, E, R>, ops: number) =>
  Effect.withMaxOpsBeforeYield(self, ops)

/** `self` failing with `onTimeout()` after `duration`. */
export const timeoutFail = <A, E, R, E2>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.DurationInput,
  onTimeout: () => E2
): Effect.Effect<A, E | E2, R> => Effect.timeoutFail(self, { duration, onTimeout })

/** `self` on a `Clock` that reads `now()` and whose timers never fire: `Effect.withClock`. */
export const withClockAt = <A, E, R>(self: Effect.Effect<A, E, R>, now: () => number) =>
  Effect.withClock(self, {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: now,
    currentTimeMillis: Effect.sync(now),
    unsafeCurrentTimeNanos: () => BigInt(now()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now()) * 1_000_000n),
    sleep: () => Effect.never
  })

/** Whether `fiber` is still running. */
export const isRunning = <A, E>(fiber: Fiber.RuntimeFiber<A, E>): Effect.Effect<boolean> =>
  Effect.map(Fiber.poll(fiber), Option.isNone)

/** `Layer.unwrapEffect` (Effect 3), `Layer.unwrap` (Effect 4). */
export const unwrapLayer = Layer.unwrapEffect

/** The platform's `FileSystem` and `Path` on Node: `NodeContext.layer` on Effect 3. */
export const NodePlatform = NodeContext.layer

/** A `KeyValueStore` whose reads and writes fail, as a disk that is gone. */
export const brokenKeyValueStore: Layer.Layer<KeyValueStore.KeyValueStore> = Layer.succeed(
  KeyValueStore.KeyValueStore,
  KeyValueStore.makeStringOnly({
    get: () =>
      Effect.fail(new SystemError({ reason: "Unknown", module: "KeyValueStore", method: "get" })),
    set: () =>
      Effect.fail(new SystemError({ reason: "Unknown", module: "KeyValueStore", method: "set" })),
    remove: () => Effect.void,
    clear: Effect.void,
    size: Effect.succeed(0)
  })
)

/** Until a timer a fiber started beside is registered with the TestClock. */
export const timerArmed: Effect.Effect<void> = Effect.gen(function* () {
  while ((yield* TestClock.sleeps()).length === 0) {
    yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
  }
})

/** How many sleeps the TestClock holds; `undefined` where the line does not list them. */
export const pendingSleeps: Effect.Effect<number | undefined> = Effect.map(
  TestClock.sleeps(),
  (sleeps) => sleeps.length
)

/** A service key of this line by its key string (`Context.GenericTag`), as the library makes its own. */
export const serviceKey = (key: string) => Context.GenericTag<unknown>(key)

/** Wipes a redacted value, as an application's hygiene does (`Redacted.unsafeWipe`). */
export const wipe = (value: Redacted.Redacted<string>): boolean => Redacted.unsafeWipe(value)

/** One turn for the other fibers. */
export const yieldNow: Effect.Effect<void> = Effect.yieldNow()

/** `HttpServerResponse.unsafeJson` (Effect 3), `jsonUnsafe` (Effect 4). */
export const json = (body: unknown, options?: { readonly status?: number }) =>
  HttpServerResponse.unsafeJson(body, options)

/** A text response, as an Effect a guard can wrap. */
export const text = (body: string) => Effect.succeed(HttpServerResponse.text(body))

/** A logger that writes each line as the logfmt logger does into `lines`, in place of the default one. */
export const logfmtLines = (lines: Array<string>): Layer.Layer<never> =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make((options) => {
      lines.push(Logger.logfmtLogger.log(options))
    })
  )

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

const routerOf = <Provided>(routes: ReadonlyArray<Route<Provided>>) =>
  routes.reduce<HttpRouter.HttpRouter<unknown, SessionValidator | Provided>>(
    (router, { method, path, handler }) =>
      HttpRouter.route(method)(router, path as HttpRouter.PathInput, handler),
    HttpRouter.empty
  )

/** Serves `routes` (an `HttpRouter` of the line) on the test server for the rest of the scope. */
export const serveRoutes = (
  routes: ReadonlyArray<Route>,
  validator: Layer.Layer<SessionValidator>
): Effect.Effect<void, never, Scope.Scope | HttpServer.HttpServer> =>
  serve(Effect.flatten(HttpRouter.toHttpApp(routerOf(routes))), validator)

/** {@link serveRoutes} behind a router-wide `requireAuth()`: `HttpRouter.use` on Effect 3. */
export const serveRoutesBehindRequireAuth = (
  routes: ReadonlyArray<Route<CurrentUser | AuthContext>>,
  validator: Layer.Layer<SessionValidator>
): Effect.Effect<void, never, Scope.Scope | HttpServer.HttpServer> =>
  serve(
    Effect.flatten(HttpRouter.toHttpApp(routerOf(routes).pipe(HttpRouter.use(requireAuth())))),
    validator
  )

/** An app as a web handler (Request in, Response out): `HttpApp.toWebHandler` on Effect 3. */
export const toWebHandler = <E>(
  app: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E,
    HttpServerRequest.HttpServerRequest | Scope.Scope
  >
): ((request: Request) => Promise<Response>) => HttpApp.toWebHandler(app)

/**
 * `routes` (an `HttpRouter` of the line) as a web handler, and how to dispose of it: the router's
 * app through `HttpApp.toWebHandler` on Effect 3, which holds nothing to dispose of.
 */
export const routesWebHandler = (
  routes: ReadonlyArray<Route>,
  validator: Layer.Layer<SessionValidator>
) => ({
  handler: toWebHandler(
    Effect.flatten(HttpRouter.toHttpApp(routerOf(routes))).pipe(Effect.provide(validator))
  ),
  dispose: async (): Promise<void> => {}
})

/** The line's router of layers, where `AuthMiddleware` applies: `HttpLayerRouter` on Effect 3. */
export { HttpLayerRouter as LayerRouter }
