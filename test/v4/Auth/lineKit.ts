/**
 * Effect 4's side of test/Auth/lineKit.ts (see there): the shared Auth tests get this module in
 * its place on the Effect 4 run (toolchains/effect4/vitest.config.ts).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"

export { HttpServerRequest, HttpServerResponse, NodeHttpClient, TestClock }

/** Which line runs the test. */
export const LINE = 4 as 3 | 4

/** `Effect.fork` (Effect 3), `Effect.forkChild` (Effect 4). */
export const fork = Effect.forkChild

/** One turn for the other fibers. */
export const yieldNow: Effect.Effect<void> = Effect.yieldNow

/** `HttpServerResponse.unsafeJson` (Effect 3), `jsonUnsafe` (Effect 4). */
export const json = (body: unknown, options?: { readonly status?: number }) =>
  HttpServerResponse.jsonUnsafe(body, options)

/** A text response, as an Effect a guard can wrap. */
export const text = (body: string) => Effect.succeed(HttpServerResponse.text(body))

/** A request to the handler in process. */
export const requestOf = (request: Request) => HttpServerRequest.fromWeb(request)

/** An effect with a scope, closed at its end (`it.scoped`'s body on Effect 3). */
export const scoped = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, Scope.Scope>> => Effect.scoped(self)
