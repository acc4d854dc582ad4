/**
 * Client throughput: the facade and the Effect API against raw `undici.request`, global `fetch`,
 * `ky` and `axios`, all against the same local server in a separate process, with the same number
 * of requests in flight.
 *
 * It measures the built package (`dist`, what an application runs), so build first. It runs the
 * Effect 3 line (`svc-sdk/v3`) by default, the Effect 4 line (`svc-sdk`) with `--line 4`, which
 * needs Node ≥ 22.19 and the Effect 4 toolchain's resolution (`scripts/effect4-loader.mjs`):
 *
 *   npm run build && npx tsx bench/client.ts [--runs 3] [--seconds 3]
 *   node --import tsx --import ./scripts/effect4-loader.mjs bench/client.ts --line 4
 */
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath, pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import axios from "axios"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as ManagedRuntime from "effect/ManagedRuntime"
import ky from "ky"
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

/** Requests in flight at any time. */
const CONCURRENCY = 32

const startServer = (): Promise<{ origin: string; child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./server.mjs", import.meta.url)), [], {
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    child.once("message", (message) => {
      const { port } = message as { port: number }
      resolve({ origin: `http://127.0.0.1:${port}`, child })
    })
    child.once("error", reject)
  })

type Send = () => Promise<unknown>

/** Completed requests per second with {@link CONCURRENCY} loops for `seconds`. */
const measure = async (send: Send, seconds: number): Promise<number> => {
  let completed = 0
  let failed = 0
  const deadline = performance.now() + seconds * 1000
  const loop = async () => {
    while (performance.now() < deadline) {
      try {
        await send()
        completed++
      } catch {
        failed++
      }
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, loop))
  const elapsed = (performance.now() - started) / 1000
  if (failed > 0) throw new Error(`${failed} requests failed during the measurement`)
  return completed / elapsed
}

/** The Effect line under test: 4 (`svc-sdk`) or 3 (`svc-sdk/v3`), whose API is the same here. */
type Line = 3 | 4

const makeClients = async (origin: string, line: Line) => {
  const { createSvc, SvcClient } = (await import(
    line === 4 ? "svc-sdk" : "svc-sdk/v3"
  )) as typeof import("svc-sdk/v3")
  const url = `${origin}/bench`
  const svc = createSvc(origin)
  const runtime = ManagedRuntime.make(NodeHttpClient.layerUndici)
  const effectClient = await runtime.runPromise(SvcClient.make(origin))
  // the same HttpClient alone, the floor for the adapter: GET and read the JSON, nothing else
  const HttpClientModule: {
    readonly HttpClient: typeof import("@effect/platform/HttpClient").HttpClient
  } =
    line === 4
      ? ((await import("effect/http" as string)) as { HttpClient: never }).HttpClient
      : await import("@effect/platform/HttpClient")
  const httpClient = await runtime.runPromise(HttpClientModule.HttpClient)
  const getJson = () => Effect.flatMap(httpClient.get(url), (response) => response.json)
  // a fiber that the caller's scope does not end: forkDaemon on Effect 3, forkDetach on Effect 4
  const forkOwn = ((Effect as { forkDaemon?: unknown }).forkDaemon ??
    (Effect as unknown as { forkDetach: unknown }).forkDetach) as typeof Effect.forkDaemon
  const fastClient = await Effect.runPromise(
    Effect.provide(SvcClient, SvcClient.layerDefault(origin))
  )
  const api = ky.create({ retry: 0 })
  const clients: Record<string, Send> = {
    facade: async () => {
      const response = await svc.get("/bench")
      if (!response.success) throw new Error(response.error)
    },
    "Effect API": () => runtime.runPromise(effectClient.get("/bench")),
    "HttpClient alone": () => runtime.runPromise(getJson()),
    // what bounding that call costs in Effect itself: its own timeout, or a fiber of its own
    "HttpClient alone, under Effect.timeout": () =>
      runtime.runPromise(Effect.timeout(getJson(), "30 seconds")),
    "HttpClient alone, forked and joined": () =>
      runtime.runPromise(Effect.flatMap(forkOwn(getJson()), Fiber.join)),
    "Effect API (layerDefault)": () => Effect.runPromise(fastClient.get("/bench")),
    "undici.request": async () => {
      const response = await request(url)
      await response.body.json()
    },
    fetch: async () => {
      const response = await fetch(url)
      await response.json()
    },
    ky: () => api.get(url).json(),
    axios: () => axios.get(url)
  }
  // ky 2 (ky's current major) needs Node 22 or later: fetched from the registry when first needed
  if (Number(process.versions.node.split(".")[0]) >= 22) {
    const { ky2Module } = await import("../scripts/node-versions.mjs")
    const ky2Exports: { default: typeof ky } = await import(pathToFileURL(ky2Module()).href)
    const ky2 = ky2Exports.default.create({ retry: 0 })
    clients["ky 2"] = () => ky2.get(url).json()
  }
  return { clients, dispose: () => runtime.dispose() }
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN)

/** Length of one paired slice, in seconds. */
const SLICE_SECONDS = 1

/** A goal's two clients: `client` measured against `peer`; without a goal, a floor's figure. */
interface Pairing {
  readonly client: string
  readonly peer: string
  readonly goal?: number
}

/**
 * `client / peer` in `count` pairs of one-second slices back to back, the order alternating from
 * pair to pair. Both clients share two cores with the server, so the machine's drift moves both
 * slices of a pair alike and cancels out of their ratio; the median of the pairs is the figure.
 */
const measurePairs = async (
  clients: Record<string, Send>,
  { client, peer }: Pairing,
  count: number
): Promise<Array<number>> => {
  const ratios: Array<number> = []
  for (let pair = 0; pair < count; pair++) {
    const clientFirst = pair % 2 === 0
    const first = await measure(clients[clientFirst ? client : peer]!, SLICE_SECONDS)
    const second = await measure(clients[clientFirst ? peer : client]!, SLICE_SECONDS)
    ratios.push(clientFirst ? first / second : second / first)
  }
  return ratios
}

/** The goals on each line: Effect 4's are the newer, stricter ones. */
const GOALS = {
  3: { facade: 0.6, layerDefault: 0.6, adapter: 0.9 },
  4: { facade: 0.75, layerDefault: 0.75, adapter: 0.9 }
} as const

export const run = async (options: BenchOptions, line: Line = 3): Promise<Section> => {
  const { origin, child } = await startServer()
  const { clients, dispose } = await makeClients(origin, line)
  const names = Object.keys(clients)
  const samples: Record<string, Array<number>> = Object.fromEntries(names.map((n) => [n, []]))
  const pairings: Array<Pairing> = [
    { client: "facade", peer: "undici.request", goal: GOALS[line].facade },
    { client: "Effect API (layerDefault)", peer: "undici.request", goal: GOALS[line].layerDefault },
    { client: "Effect API", peer: "HttpClient alone", goal: GOALS[line].adapter },
    // the floors of the adapter's goal: any deadline on the HttpClient's call, in Effect itself
    { client: "HttpClient alone, under Effect.timeout", peer: "HttpClient alone" },
    { client: "HttpClient alone, forked and joined", peer: "HttpClient alone" },
    { client: "facade", peer: "ky", goal: 1.5 },
    ...(clients["ky 2"] === undefined ? [] : [{ client: "facade", peer: "ky 2", goal: 1.5 }])
  ]
  const paired = new Map<Pairing, Array<number>>()
  try {
    for (const name of names) await measure(clients[name]!, Math.min(1, options.seconds / 3))
    for (let round = 0; round < options.runs; round++) {
      // rotate the order so that no client always runs first or last
      const order = names.map((_, i) => names[(i + round) % names.length]!)
      for (const name of order) samples[name]!.push(await measure(clients[name]!, options.seconds))
    }
    const count = Math.max(3, Math.round((options.runs * options.seconds) / SLICE_SECONDS))
    for (const pairing of pairings) paired.set(pairing, await measurePairs(clients, pairing, count))
  } finally {
    await dispose()
    child.disconnect()
  }
  const value = (name: string) => median(samples[name]!)
  const facade = value("facade")
  const peers = names.filter((n) => n !== "facade")
  const pairedRatio = (client: string, peer: string) => {
    const found = pairings.find((p) => p.client === client && p.peer === peer)
    return found === undefined ? undefined : median(paired.get(found)!)
  }
  const figures: Array<Figure> = names.map((name) => ({
    name,
    value: value(name),
    unit: "req/s",
    ...(name === "facade"
      ? {
          ratios: peers.map((peer) => ({
            peer,
            ratio: pairedRatio("facade", peer) ?? ratio(facade, value(peer))
          }))
        }
      : {})
  }))
  // the in-memory rows time the Effect 3 binding's internals
  const overhead = line === 3 ? await (await import("./client-overhead.js")).measureOverhead() : {}
  for (const [name, micros] of Object.entries(overhead)) {
    figures.push({
      name: `in-memory: ${name}`,
      value: micros,
      unit: "µs/request",
      note: "best of 8"
    })
  }
  for (const pairing of pairings) {
    if (pairing.goal !== undefined) continue
    const ratios = paired.get(pairing)!
    figures.push({
      name: `floor: ${pairing.client}`,
      value: median(ratios),
      unit: `× ${pairing.peer}`,
      note: `paired; quartiles ${quartiles(ratios)}`
    })
  }
  const goals: Array<Goal> = pairings.flatMap((pairing) => {
    if (pairing.goal === undefined) return []
    const ratios = paired.get(pairing)!
    const measured = median(ratios)
    const client =
      pairing.client === "Effect API (layerDefault)"
        ? "Effect API on SvcClient.layerDefault"
        : pairing.client === "Effect API"
          ? "Effect API on SvcClient.layer(HttpClient)"
          : pairing.client
    const peer =
      pairing.peer === "HttpClient alone"
        ? "that HttpClient alone (NodeHttpClient.layerUndici, GET + JSON)"
        : pairing.peer
    return [
      {
        text: `${client} ≥ ${pairing.goal}× ${peer}`,
        met: measured >= pairing.goal,
        detail: `${ratioText(measured, pairing.goal)}× (median of ${ratios.length} paired slices; quartiles ${quartiles(ratios)})`
      }
    ]
  })
  return {
    title: `Client throughput, Effect ${line} (${line === 4 ? "svc-sdk" : "svc-sdk/v3"}, Node ${process.versions.node})`,
    method:
      `GET of a small JSON envelope from a node:http server in a separate process on 127.0.0.1; ` +
      `${CONCURRENCY} requests in flight per client, ${options.seconds} s per measurement, ` +
      `median of ${options.runs} runs (order rotated each run, one warm-up pass). ` +
      `The goal ratios (facade and layerDefault against undici.request, the Effect API against its HttpClient alone, facade against ky) come from pairs of ${SLICE_SECONDS} s slices of the two clients back to back, the order alternating; each is the median of the per-pair ratios, and the facade's ratios in the table are those. ` +
      `The facade runs over its default Node transport (undici through the global dispatcher); the Effect API over NodeHttpClient.layerUndici (the HttpClient adapter), and over SvcClient.layerDefault (the facade's transport); "HttpClient alone" is that same NodeHttpClient.layerUndici client's GET and JSON read, on the same runtime, and the adapter's goal pairs the Effect API with it. ` +
      `The floors pair that HttpClient alone, bounded as Effect itself bounds a call (Effect.timeout of 30 s; a fiber of its own, joined), with the same client unbounded: what a deadline on its call costs before any of svc-sdk's pipeline (the adapter runs each exchange on a fiber of its own, which its deadline and its caller's interruption end). ` +
      `The in-memory rows time the request program over an in-memory transport, and over the HttpClient adapter with an in-memory HttpClient, without network.`,
    figures,
    goals
  }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]
if (isMain) {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "1" },
      seconds: { type: "string", default: "3" },
      json: { type: "boolean", default: false },
      line: { type: "string", default: "3" }
    }
  })
  const section = await run(
    { runs: Number(values.runs), seconds: Number(values.seconds) },
    values.line === "4" ? 4 : 3
  )
  if (values.json) {
    // for `npm run bench`, which runs this section on another Node version as well
    console.log(JSON.stringify(section))
    process.exit(0)
  }
  console.log(`${section.title}\n${section.method}\n`)
  for (const figure of section.figures) {
    const ratios = (figure.ratios ?? []).map((r) => `${r.ratio.toFixed(2)}× ${r.peer}`).join(", ")
    console.log(
      `${figure.name.padEnd(16)} ${Math.round(figure.value).toString().padStart(8)} ${figure.unit}  ${ratios}`
    )
  }
  for (const goal of section.goals)
    console.log(`${goal.met ? "met " : "MISS"} ${goal.text}: ${goal.detail}`)
}
