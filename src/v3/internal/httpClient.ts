/**
 * Effect 3's `HttpClient` dialect: `@effect/platform`, as the shared adapter
 * (`common/httpClientTransport.ts`) uses it, member for member in the order of
 * `common/dialect.ts`. Loaded by the first layer that sends through an `HttpClient`
 * (`#httpClientAdapter`).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Headers from "@effect/platform/Headers"
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { HttpClientDialect } from "../../common/dialect.js"
import type { Transport } from "../../common/exchange.js"
import { fromHttpClient, manualRedirect } from "../../common/httpClientTransport.js"
import { client } from "./dialect.js"

const disabled = () => true

/**
 * Forks `effect` on a fiber that the caller's end interrupts, whatever the caller's fork scope
 * (`Effect.daemonChildren` would make a child of `Effect.fork` a daemon): a daemon fiber that the
 * caller observes until it ends.
 */
const forkEndingWithCaller = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.withFiberRuntime<Fiber.RuntimeFiber<A, E>>((caller) =>
    Effect.map(Effect.forkDaemon(effect), (fiber) => {
      const end = () => fiber.unsafeInterruptAsFork(caller.id())
      caller.addObserver(end)
      fiber.addObserver(() => caller.removeObserver(end))
      return fiber
    })
  )

/** The fiber's context, `FetchHttpClient.RequestInit` in it leaving redirects to svc-sdk. */
const withManualRedirect = (refs: FiberRefs.FiberRefs) => {
  const context = FiberRefs.getOrDefault(refs, FiberRef.currentContext)
  return Context.add(
    context,
    FetchHttpClient.RequestInit,
    manualRedirect(Option.getOrUndefined(Context.getOption(context, FetchHttpClient.RequestInit)))
  )
}

export const httpClient: HttpClientDialect = {
  request: (method, url, headers) =>
    HttpClientRequest.make(method as HttpClientRequest.HttpClientRequest["method"])(url).pipe(
      HttpClientRequest.setHeaders(headers)
    ),
  bodyText: HttpClientRequest.bodyText,
  bodyUint8Array: HttpClientRequest.bodyUint8Array,
  setBody: HttpClientRequest.setBody,
  raw: HttpBody.raw,
  fold: (stream, initial, f) =>
    Stream.runFoldEffect(
      stream as HttpClientResponse.HttpClientResponse["stream"],
      initial,
      (state, chunk) => f(state, chunk)
    ),
  // interruptible even when the caller is not (a bare HttpServer app's handler): the try's
  // deadline must reach the platform's call
  forkQuiet: (effect, secretHeaders) =>
    forkEndingWithCaller(
      Effect.interruptible(
        Effect.zipRight(
          Effect.updateFiberRefs((fiberId, refs) => {
            const own = <A>(ref: FiberRef.FiberRef<A>, value: A) =>
              [ref, [[fiberId, value]]] as const
            return FiberRefs.updateManyAs(refs, {
              forkAs: fiberId,
              entries: [
                own(FiberRef.currentContext, withManualRedirect(refs)),
                own(Headers.currentRedactedNames, [
                  ...FiberRefs.getOrDefault(refs, Headers.currentRedactedNames),
                  ...secretHeaders
                ]),
                own(HttpClient.currentTracerDisabledWhen, disabled)
              ]
            })
          }),
          effect
        )
      )
    )
}

/** A transport that sends through an `HttpClient` of this line. */
export const adapter = (http: unknown): Transport => fromHttpClient(client, httpClient, http)
