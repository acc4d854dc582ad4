/**
 * The Effect API of a line, written once for both: its face (every method gives its program, the
 * `Stream`s of `stream` and `sse` included) and its constructors over the runtime's transport or
 * an `HttpClient`. A module apart from the facade's: a facade's bundle, which uses none of it,
 * drops it whole, `effect/Stream` with it (a dynamic import would still have made it a chunk, and
 * split the facade's own code into more chunks: measured).
 */
import * as Effect from "effect/Effect"
import { defaultTransport } from "#transport"
import type { ApiFailure } from "../core/ApiResponse.js"
import { type CallTracing, type ClientConfig, type ClientState, makeState } from "./client.js"
import type { ClientDialect, StreamDialect, TracingDialect } from "./dialect.js"
import { fromWebBatches, fromWebStream } from "./effectStreams.js"
import { fromSend, type Transport } from "./exchange.js"
import { type Face, fromState, type Surface, transportFor } from "./service.js"
import { callTracing } from "./tracing.js"

/** The Effect API's face on a line: every method gives its program. */
const effectFace = (streams: StreamDialect): Face<"effect"> => ({
  request: (program) => program(undefined),
  stream: (program) => fromWebStream((streamed) => program(undefined, streamed)),
  sse: (program) =>
    fromWebBatches(
      (streamed) => program(undefined, streamed),
      (body) => body.events,
      streams.fromBatches
    ),
  sessionId: (program) => program,
  hasSession: (program) => program,
  changeThen: (change, then) => Effect.suspend(() => then(change())),
  change: (change) => Effect.sync(change),
  refresh: (refreshSession, client, failed) =>
    Effect.suspend(() => {
      const answer = (refreshSession as (failed: ApiFailure, client: unknown) => unknown)(
        failed,
        client
      )
      // the Effect API's own type asks for an Effect that needs no services
      return Effect.isEffect(answer)
        ? (answer as Effect.Effect<unknown, unknown>)
        : Effect.fail(new TypeError("refreshSession must return an Effect on the Effect API"))
    })
})

/** The Effect API of a line: each call traced, over the runtime's transport or an `HttpClient`. */
export const effectApi = (line: ClientDialect, tracing: TracingDialect, streams: StreamDialect) => {
  const traced = callTracing(line, tracing)
  const face = effectFace(streams)
  return {
    fromDefaultTransport: (baseUrl: string, config?: ClientConfig) =>
      fromDefaultTransport(line, traced, face, baseUrl, config),
    fromHttpClient: <Client, R>(
      baseUrl: string,
      config: ClientConfig | undefined,
      httpClient: Effect.Effect<Client, never, R>,
      load: () => Promise<(client: Client) => Transport>
    ) => fromHttpClient(line, traced, face, baseUrl, config, httpClient, load)
  }
}

/**
 * The states of a client that each run of the returned Effect makes afresh — each build of a
 * layer, each run of `make` — so that two builds (two runtimes, `Layer.fresh`, a test's own layer)
 * never share a session, headers or interceptors. The settings are checked at the call: a bad base
 * URL or config throws there, and the state that check made serves the first run.
 */
const statePerRun = (make: () => ClientState): Effect.Effect<ClientState> => {
  let first: ClientState | undefined = make()
  return Effect.sync(() => {
    const state = first ?? make()
    first = undefined
    return state
  })
}

/**
 * The Effect API over the facade's transport: `config.fetch`, else the runtime's (undici on Node,
 * fetch elsewhere); a client of its own for each run.
 */
const fromDefaultTransport = (
  line: ClientDialect,
  tracing: CallTracing,
  face: Face<"effect">,
  baseUrl: string,
  config?: ClientConfig
): Effect.Effect<Surface<"effect">> =>
  Effect.map(
    statePerRun(() => makeState(line, tracing, baseUrl, config)),
    (state) =>
      fromState(
        state,
        transportFor(line, config, () => fromSend(line, defaultTransport)),
        face
      )
  )

/**
 * The Effect API over the `HttpClient` in context (`client`), its adapter loaded by `load` (the
 * line's `#onDemand`) — or over `config.fetch` when one is given; a client of its own for each
 * run. Validates at once (throws on bad input).
 */
const fromHttpClient = <Client, R>(
  line: ClientDialect,
  tracing: CallTracing,
  face: Face<"effect">,
  baseUrl: string,
  config: ClientConfig | undefined,
  httpClient: Effect.Effect<Client, never, R>,
  load: () => Promise<(client: Client) => Transport>
): Effect.Effect<Surface<"effect">, never, R> => {
  const states = statePerRun(() => makeState(line, tracing, baseUrl, config))
  return Effect.flatMap(httpClient, (client) =>
    Effect.flatMap(states, (state) =>
      Effect.map(Effect.promise(load), (adapter) =>
        fromState(
          state,
          transportFor(line, config, () => adapter(client)),
          face
        )
      )
    )
  )
}
