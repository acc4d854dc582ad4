/**
 * What the Effect API's client spans (#25) cost: the Effect API over `SvcClient.layerDefault` with
 * spans on (Effect's default tracer, no exporter), with trace propagation off, and with spans off
 * (`Effect.withTracerEnabled(false)`), and the facade, each against raw `undici.request`, in pairs
 * of one-second slices as bench/client.ts measures its goals (the server in a process of its own,
 * 32 requests in flight). It measures the built package, so build first:
 *
 *   npm run build && npx tsx bench/tracing.ts [--runs 3 --seconds 3]
 *   node --import tsx --import ./scripts/effect4-loader.mjs bench/tracing.ts --line 4   # Node ≥ 22.19
 */
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import * as Effect from "effect/Effect"
import { request } from "undici"
import {
  type BenchOptions,
  type Figure,
  type Goal,
  median,
  quartiles,
  ratioText,
  type Section
} from "./report.js"
import { startJsonServer } from "./streamKit.js"

const CONCURRENCY = 32

/** The floor's span: a client span, as the Effect API's, without a stack trace. */
const CLIENT_SPAN = { kind: "client", captureStackTrace: false } as const

/** Completed requests per second with {@link CONCURRENCY} loops for `seconds`. */
const measure = async (send: () => Promise<unknown>, seconds: number): Promise<number> => {
  let completed = 0
  const deadline = performance.now() + seconds * 1000
  const loop = async () => {
    while (performance.now() < deadline) {
      await send()
      completed++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, loop))
  return completed / ((performance.now() - started) / 1000)
}

/** The goals on each line (#32): `layerDefault` against raw undici.request, spans on and off. */
const GOALS = {
  3: {
    "layerDefault, spans on": 0.6,
    "layerDefault, spans off (Effect.withTracerEnabled(false))": 0.7
  },
  4: {
    "layerDefault, spans on": 0.75,
    "layerDefault, spans off (Effect.withTracerEnabled(false))": 0.85
  }
} as const satisfies Record<3 | 4, Record<string, number>>

export const run = async (options: BenchOptions, line: 3 | 4 = 3): Promise<Section> => {
  const { createSvc, SvcClient } = (await import(
    line === 4 ? "svc-sdk" : "svc-sdk/v3"
  )) as typeof import("svc-sdk/v3")
  const { origin, stop } = await startJsonServer()
  try {
    const layerClient = (config?: { readonly tracerPropagation?: boolean }) =>
      Effect.runPromise(Effect.provide(SvcClient, SvcClient.layerDefault(origin, config)))
    const spans = await layerClient()
    const unpropagated = await layerClient({ tracerPropagation: false })
    const facade = createSvc(origin)
    const getJson = async (signal?: AbortSignal) => {
      const response = await request(`${origin}/bench`, signal === undefined ? {} : { signal })
      return response.body.json()
    }
    const abortable = Effect.promise((signal) => getJson(signal))
    const clients: Record<string, () => Promise<unknown>> = {
      "layerDefault, spans on": () => Effect.runPromise(spans.get("/bench")),
      "layerDefault, spans on, tracerPropagation: false": () =>
        Effect.runPromise(unpropagated.get("/bench")),
      "layerDefault, spans off (Effect.withTracerEnabled(false))": () =>
        Effect.runPromise(Effect.withTracerEnabled(spans.get("/bench"), false)),
      facade: async () => {
        const response = await facade.get("/bench")
        if (!response.success) throw new Error(response.error)
      },
      // the floors: undici.request run as an Effect program, with nothing of svc-sdk's
      "floor: Effect.runPromise(Effect.promise(undici.request))": () =>
        Effect.runPromise(Effect.promise(() => getJson())),
      "floor: the same, aborted on interruption (Effect.promise's signal)": () =>
        Effect.runPromise(abortable),
      "floor: the same, aborted on interruption, in a client span (Effect.withSpan)": () =>
        Effect.runPromise(Effect.withSpan(abortable, "GET", CLIENT_SPAN)),
      "undici.request": () => getJson()
    }
    for (const send of Object.values(clients)) await measure(send, 0.5)
    const pairs = Math.max(5, Math.round(options.runs * options.seconds))
    const figures: Array<Figure> = []
    const goals: Array<Goal> = []
    for (const name of Object.keys(clients)) {
      if (name === "undici.request") continue
      const ratios: Array<number> = []
      for (let pair = 0; pair < pairs; pair++) {
        const clientFirst = pair % 2 === 0
        const first = await measure(clients[clientFirst ? name : "undici.request"]!, 1)
        const second = await measure(clients[clientFirst ? "undici.request" : name]!, 1)
        ratios.push(clientFirst ? first / second : second / first)
      }
      const ratio = median(ratios)
      figures.push({
        name,
        value: ratio,
        unit: "× undici.request",
        note: `quartiles ${quartiles(ratios)}`
      })
      const goal = (GOALS[line] as Record<string, number>)[name]
      if (goal !== undefined) {
        goals.push({
          text: `Effect API on ${name} ≥ ${goal}× undici.request`,
          met: ratio >= goal,
          detail: `${ratioText(ratio, goal)}× (median of ${pairs} paired slices; quartiles ${quartiles(ratios)})`
        })
      }
    }
    return {
      title: `Client spans, Effect ${line} (Node ${process.versions.node})`,
      method:
        `Each client against raw undici.request in ${pairs} pairs of 1 s slices back to back, the order alternating, ${CONCURRENCY} requests in flight, the server in a process of its own; the median of the per-pair ratios. ` +
        "Spans on: Effect's default tracer, no exporter (what an Effect program has by default). " +
        "The floors run undici.request itself as an Effect program, with nothing of svc-sdk's: what running a call on Effect costs before any pipeline, what aborting it when its fiber is interrupted adds, and a client span; the Effect API does all three on every call.",
      figures,
      goals
    }
  } finally {
    stop()
  }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const { values } = parseArgs({
    options: {
      line: { type: "string", default: "3" },
      runs: { type: "string", default: "3" },
      seconds: { type: "string", default: "3" },
      json: { type: "boolean", default: false }
    }
  })
  const section = await run(
    { runs: Number(values.runs), seconds: Number(values.seconds) },
    values.line === "4" ? 4 : 3
  )
  if (values.json) console.log(JSON.stringify(section))
  else {
    console.log(section.title)
    for (const figure of section.figures)
      console.log(`${figure.name}: ${figure.value.toFixed(2)}× (${figure.note})`)
    for (const goal of section.goals)
      console.log(`${goal.met ? "met " : "MISS"} ${goal.text}: ${goal.detail}`)
  }
  process.exit(0)
}
