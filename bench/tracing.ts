/**
 * What the Effect API's client spans (#25) cost: the Effect API over `SvcClient.layerDefault` with
 * spans on (Effect's default tracer, no exporter), with trace propagation off, and with spans off
 * (`Effect.withTracerEnabled(false)`), and the facade, each against raw `undici.request`, in pairs
 * of one-second slices as bench/client.ts measures its goals (the server in a process of its own,
 * 32 requests in flight). It measures the built package, so build first:
 *
 *   npm run build && npx tsx bench/tracing.ts [--pairs 9]
 *   node --import tsx --import ./scripts/effect4-loader.mjs bench/tracing.ts --line 4   # Node ≥ 22.19
 */
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import * as Effect from "effect/Effect"
import { request } from "undici"

const { values } = parseArgs({
  options: { line: { type: "string", default: "3" }, pairs: { type: "string", default: "9" } }
})
const line = values.line === "4" ? 4 : 3
const { createSvc, SvcClient } = (await import(
  line === 4 ? "svc-sdk" : "svc-sdk/v3"
)) as typeof import("svc-sdk/v3")

const CONCURRENCY = 32

const child = fork(fileURLToPath(new URL("./server.mjs", import.meta.url)), [], {
  stdio: ["ignore", "inherit", "inherit", "ipc"]
})
const { port } = await new Promise<{ port: number }>((resolve) =>
  child.once("message", (message) => resolve(message as { port: number }))
)
const origin = `http://127.0.0.1:${port}`

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

const layerClient = (config?: { readonly tracerPropagation?: boolean }) =>
  Effect.runPromise(Effect.provide(SvcClient, SvcClient.layerDefault(origin, config)))
const spans = await layerClient()
const unpropagated = await layerClient({ tracerPropagation: false })
const facade = createSvc(origin)

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
  "undici.request": async () => {
    const response = await request(`${origin}/bench`)
    await response.body.json()
  }
}

for (const send of Object.values(clients)) await measure(send, 0.5)
const pairs = Number(values.pairs)
console.log(`Effect ${line} line, Node ${process.versions.node}: each against undici.request`)
for (const name of Object.keys(clients)) {
  if (name === "undici.request") continue
  const ratios: Array<number> = []
  for (let pair = 0; pair < pairs; pair++) {
    const clientFirst = pair % 2 === 0
    const first = await measure(clients[clientFirst ? name : "undici.request"]!, 1)
    const second = await measure(clients[clientFirst ? "undici.request" : name]!, 1)
    ratios.push(clientFirst ? first / second : second / first)
  }
  ratios.sort((a, b) => a - b)
  const at = (q: number) => ratios[Math.floor(q * (ratios.length - 1))]!.toFixed(2)
  console.log(`${name}: ${at(0.5)}× (quartiles ${at(0.25)}–${at(0.75)}, ${pairs} pairs)`)
}
child.disconnect()
process.exit(0)
