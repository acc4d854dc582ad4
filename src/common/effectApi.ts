/**
 * The Effect API of a line, written once for both: its face (every method gives its program; the
 * `Stream`s of `stream` and `sse`, loaded by the layers before they hand out a client) and its
 * constructors over the runtime's transport or an `HttpClient`. A module the facade does not load:
 * its on-demand `Stream` code is no chunk of a facade's bundle.
 */
import * as Effect from "effect/Effect"
import { defaultTransport } from "#transport"
import type { ApiFailure } from "../core/ApiResponse.js"
import { type CallTracing, type ClientConfig, makeState } from "./client.js"
import type { ClientDialect, TracingDialect } from "./dialect.js"
import { fromSend, type Transport } from "./exchange.js"
import { type Face, fromState, type Surface, transportFor } from "./service.js"
import { callTracing } from "./tracing.js"

/** The Effect API's `Stream`s (`effectStreams.ts`), once a layer has loaded them. */
let effectStreams: typeof import("./effectStreams.js") | undefined

/** How a line loads the Effect API's `Stream`s (its `#onDemand` module's `loadEffectStreams`). */
export type LoadEffectStreams = () => Promise<typeof import("./effectStreams.js")>

/**
 * Loads the Effect API's `Stream`s with `load`: every layer does before it hands out a client.
 * The line's on-demand module imports them (statically in a browser build, where a facade's
 * bundle then drops them; dynamically elsewhere), so that a facade's bundle holds no
 * `effect/Stream`, not even as a chunk.
 */
const loadEffectStreams = (load: LoadEffectStreams): Effect.Effect<void> =>
  Effect.suspend(() =>
    effectStreams === undefined
      ? Effect.promise(() =>
          load().then((loaded) => {
            effectStreams = loaded
          })
        )
      : Effect.void
  )

const loadedStreams = () => {
  if (effectStreams === undefined) {
    throw new Error("svc-sdk: the Effect API's streams are loaded by SvcClient's layers")
  }
  return effectStreams
}

/** The Effect API's face: every method gives its program. */
export const effectFace: Face<"effect"> = {
  request: (program) => program,
  stream: (program) => loadedStreams().fromWebStream(program, (body) => body),
  sse: (program) => loadedStreams().fromWebStream(program, (body) => body.events),
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
}

/** The Effect API of a line: each call traced, over the runtime's transport or an `HttpClient`. */
export const effectApi = (
  line: ClientDialect,
  tracing: TracingDialect,
  loadStreams: LoadEffectStreams
) => {
  const traced = callTracing(line, tracing)
  const ready = loadEffectStreams(loadStreams)
  return {
    fromDefaultTransport: (baseUrl: string, config?: ClientConfig) =>
      fromDefaultTransport(line, traced, baseUrl, config),
    /** Loads what the Effect API's `stream` and `sse` need: before a client is handed out. */
    ready,
    fromHttpClient: <Client, R>(
      baseUrl: string,
      config: ClientConfig | undefined,
      httpClient: Effect.Effect<Client, never, R>,
      load: () => Promise<(client: Client) => Transport>
    ) => fromHttpClient(line, traced, baseUrl, config, httpClient, load, ready)
  }
}

/** The Effect API over the facade's transport: `config.fetch`, else the runtime's (undici on Node, fetch elsewhere). */
const fromDefaultTransport = (
  line: ClientDialect,
  tracing: CallTracing,
  baseUrl: string,
  config?: ClientConfig
): Surface<"effect"> =>
  fromState(
    makeState(line, tracing, baseUrl, config),
    transportFor(line, config, () => fromSend(line, defaultTransport)),
    effectFace
  )

/**
 * The Effect API over the `HttpClient` in context (`client`), its adapter loaded by `load` (the
 * line's `#onDemand`) — or over `config.fetch` when one is given. Validates at once (throws on
 * bad input).
 */
const fromHttpClient = <Client, R>(
  line: ClientDialect,
  tracing: CallTracing,
  baseUrl: string,
  config: ClientConfig | undefined,
  httpClient: Effect.Effect<Client, never, R>,
  load: () => Promise<(client: Client) => Transport>,
  ready: Effect.Effect<void>
): Effect.Effect<Surface<"effect">, never, R> => {
  const state = makeState(line, tracing, baseUrl, config)
  return Effect.flatMap(httpClient, (client) =>
    Effect.map(
      Effect.flatMap(ready, () => Effect.promise(load)),
      (adapter) =>
        fromState(
          state,
          transportFor(line, config, () => adapter(client)),
          effectFace
        )
    )
  )
}
