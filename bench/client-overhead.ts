/**
 * Per-request cost of the client's Effect program (Effect 3, the facade's) over an in-memory
 * transport (no network), and
 * over the `HttpClient` adapter with an in-memory `HttpClient`, against the bare `HttpClient` call; and
 * the same request with its data decoded by an effect/Schema, with a request interceptor,
 * `onRequest` and `onResponse`, and with a signal and a `totalTimeout` (as the Effect API runs it:
 * a fork ends it); and the facade's GET over an in-memory `fetch`, alone and with a signal and a
 * `totalTimeout` (the facade ends its call itself). Best of 8 rounds of 32 × 40 requests, which
 * keeps the figure steady on a busy machine.
 *
 *   npm run build && npx tsx bench/client-overhead.ts
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import type { Transport } from "../src/common/exchange.js"

// the built modules (`dist`), which an application runs; typed by their sources
const built = (path: string) => import(new URL(`../dist/esm/${path}`, import.meta.url).href)
const { decode, makeState, request }: typeof import("../src/common/client.js") =
  await built("common/client.js")
const { callTracing }: typeof import("../src/common/tracing.js") = await built("common/tracing.js")
const { client, facadeRuntime, tracing }: typeof import("../src/v3/internal/dialect.js") =
  await built("v3/internal/dialect.js")
const { adapter }: typeof import("../src/v3/internal/httpClient.js") = await built(
  "v3/internal/httpClient.js"
)
const { createSvc }: typeof import("../src/v3/index.js") = await built("v3/index.js")
const makeFacadeState = (baseUrl: string, config?: Parameters<typeof makeState>[3]) =>
  makeState(client, undefined, baseUrl, config)
const withInterceptor = (state: ReturnType<typeof makeFacadeState>) => {
  state.requestInterceptors.push((config) => config)
  return state
}

const body = '{"success":true,"data":{"id":1}}'
const memory = HttpClient.make((req) =>
  Effect.succeed(
    HttpClientResponse.fromWeb(
      req,
      new Response(body, {
        headers: {
          "content-type": "application/json",
          "content-length": String(new TextEncoder().encode(body).byteLength)
        }
      })
    )
  )
)

const bytes = new TextEncoder().encode(body)
const Item = Schema.Struct({ id: Schema.Number })
const memoryTransport: Transport = () =>
  Effect.succeed({
    status: 200,
    statusText: "OK",
    headers: { "content-type": "application/json" },
    body: bytes,
    hiddenRedirect: false
  })

/** The facade over an in-memory `fetch`: a fresh JSON `Response` per request. */
const memoryFetch = async () =>
  new Response(body, { headers: { "content-type": "application/json" } })

export const measureOverhead = async (): Promise<Record<string, number>> => {
  const facade = createSvc("http://h", { fetch: memoryFetch })
  const limitedFacade = createSvc("http://h", { fetch: memoryFetch, totalTimeout: 30_000 })
  const facadeSignal = new AbortController().signal
  const cases: Record<string, () => Effect.Effect<unknown> | Promise<unknown>> = {
    "empty Effect": () => Effect.void,
    "bare HttpClient get + text": () =>
      Effect.orDie(Effect.flatMap(memory.get("http://h/x"), (r) => r.text)),
    "client (defaults)": (
      (state) => () =>
        Effect.orDie(request(state, memoryTransport, "GET", "/x", undefined))
    )(makeFacadeState("http://h")),
    "client, timeout 0 and no retry": (
      (state) => () =>
        Effect.orDie(request(state, memoryTransport, "GET", "/x", undefined))
    )(makeFacadeState("http://h", { timeout: 0, retryAttempts: 0 })),
    // the decoder is loaded by the first request with a schema, and kept
    "client (defaults), data decoded with an effect/Schema": (
      (state) => () =>
        Effect.orDie(
          Effect.flatMap(request(state, memoryTransport, "GET", "/x", undefined), (response) =>
            decode(client, response, Item)
          )
        )
    )(makeFacadeState("http://h")),
    // each answers at once: none is put under the request's timeout
    "client with a request interceptor, onRequest and onResponse": (
      (state) => () =>
        Effect.orDie(request(state, memoryTransport, "GET", "/x", undefined))
    )(
      withInterceptor(
        makeFacadeState("http://h", { onRequest: () => undefined, onResponse: () => undefined })
      )
    ),
    // the caller's signal and the call's total deadline, as the Effect API runs them: each a
    // fork and an observer
    "client with a signal and a totalTimeout": (
      (state, signal) => () =>
        Effect.orDie(request(state, memoryTransport, "GET", "/x", undefined, { signal }))
    )(makeFacadeState("http://h", { totalTimeout: 30_000 }), new AbortController().signal),
    "client over the HttpClient adapter": (
      (state) => () =>
        Effect.orDie(request(state, adapter(memory), "GET", "/x", undefined))
    )(makeState(client, callTracing(client, tracing), "http://h")),
    "facade over an in-memory fetch": () => facade.get("/x"),
    // the facade ends its call itself on either: nothing forked
    "facade over an in-memory fetch, with a signal and a totalTimeout": () =>
      limitedFacade.get("/x", { signal: facadeSignal })
  }
  // the runtime the facade runs its programs on: no tracer, no fiber metrics
  const run = Runtime.runPromise(facadeRuntime)
  const best: Record<string, number> = {}
  for (let round = 0; round < 8; round++) {
    for (const [name, make] of Object.entries(cases)) {
      const started = performance.now()
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          for (let k = 0; k < 40; k++) {
            const program = make()
            await (Effect.isEffect(program) ? run(program) : program)
          }
        })
      )
      const micros = ((performance.now() - started) * 1000) / 1280
      best[name] = Math.min(best[name] ?? Number.POSITIVE_INFINITY, micros)
    }
  }
  return best
}

if (process.argv[1]?.endsWith("client-overhead.ts")) {
  for (const [name, micros] of Object.entries(await measureOverhead())) {
    console.log(`${name.padEnd(32)} ${micros.toFixed(1)} µs/request`)
  }
}
