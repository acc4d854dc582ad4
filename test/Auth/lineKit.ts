/**
 * What the shared Auth tests (listed in toolchains/effect4/vitest.config.ts's `shared`) need of
 * their Effect line that the two Effects spell differently: this is Effect 3's. The Effect 4 run
 * puts test/v4/Auth/lineKit.ts, with the same names, in its place.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { NodeHttpClient } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"

export { HttpServerRequest, HttpServerResponse, NodeHttpClient, TestClock }

/** Which line runs the test. */
export const LINE = 3 as 3 | 4

/** `Effect.fork` (Effect 3), `Effect.forkChild` (Effect 4). */
export const fork = Effect.fork

/** One turn for the other fibers. */
export const yieldNow: Effect.Effect<void> = Effect.yieldNow()

/** `HttpServerResponse.unsafeJson` (Effect 3), `jsonUnsafe` (Effect 4). */
export const json = (body: unknown, options?: { readonly status?: number }) =>
  HttpServerResponse.unsafeJson(body, options)

/** A text response, as an Effect a guard can wrap. */
export const text = (body: string) => Effect.succeed(HttpServerResponse.text(body))

/** A request to the handler in process. */
export const requestOf = (request: Request) => HttpServerRequest.fromWeb(request)

/** An effect with a scope, closed at its end (`it.scoped`'s body on Effect 3). */
export const scoped = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, Scope.Scope>> => Effect.scoped(self)
