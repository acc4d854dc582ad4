/**
 * Server-sent events parsing speed: the same bytes, in the same chunks, through the SDK's parser
 * (`src/core/sse.ts`, fed bytes) and through eventsource-parser (fed the bytes decoded by a
 * streaming `TextDecoder`, as a caller of it does). Three bodies: the streamed answer of an AI API
 * (many small `data:` events of token JSON) in English (ASCII) and in French (accents, an emoji),
 * and a feed of larger events (`id`, `event`, a few KiB of JSON each, names with accents), cut into
 * chunks of 1–16 KiB. Both parsers must yield the same events (checked before timing). Where the
 * text is not ASCII both decode with the same streaming TextDecoder, which then takes most of the
 * time: the parsers differ less there.
 *
 * Then the same through the network, end to end (bench/sse-e2e.ts): the built package's `sse()`
 * against undici.request with eventsource-parser.
 *
 * Standalone: `npm run build && npx tsx bench/sse.ts [--runs 5] [--seconds 1] [--line 4]`.
 */
import { createRequire } from "node:module"
import { parseArgs } from "node:util"
import { createParser } from "eventsource-parser"
import { makeSseParser } from "../src/core/sse.js"
import type { BenchOptions, Figure, Goal, Section } from "./report.js"
import { median } from "./report.js"
import { endToEnd } from "./sse-e2e.js"
import { aiAnswer, english, feed, french, random } from "./sseBodies.js"
import { isMainModule, type Line } from "./streamKit.js"

const peerVersion = (
  createRequire(import.meta.url)("eventsource-parser/package.json") as { version: string }
).version

/** `bytes` cut into chunks of 1–16 KiB. */
const chunked = (bytes: Uint8Array, seed: number): Array<Uint8Array> => {
  const next = random(seed)
  const chunks: Array<Uint8Array> = []
  for (let start = 0; start < bytes.length; ) {
    const size = 1024 + Math.floor(next() * 15 * 1024)
    chunks.push(bytes.subarray(start, start + size))
    start += size
  }
  return chunks
}

const encoder = new TextEncoder()
const bodies = {
  "AI answer in English (small events, ASCII)": chunked(
    encoder.encode(aiAnswer(10_000, english)),
    3
  ),
  "AI answer in French (small events)": chunked(encoder.encode(aiAnswer(10_000, french)), 3),
  "feed (4 KiB events)": chunked(encoder.encode(feed(500, 4096)), 5)
} as const
type Body = keyof typeof bodies

let sink = 0

/** Parses the body with the SDK's parser; the number of events. */
const sdk = (chunks: ReadonlyArray<Uint8Array>, collect?: Array<string>): number => {
  let events = 0
  const parser = makeSseParser({
    onEvent: (event) => {
      events++
      sink += event.data.length
      collect?.push(`${event.event}|${event.id}|${event.data}`)
    }
  })
  for (const chunk of chunks) parser.push(chunk)
  parser.end()
  return events
}

/** Parses the body with eventsource-parser, decoding as a caller of it does; the number of events. */
const peer = (chunks: ReadonlyArray<Uint8Array>, collect?: Array<string>): number => {
  let events = 0
  const decoder = new TextDecoder()
  const parser = createParser({
    onEvent: (event) => {
      events++
      sink += event.data.length
      collect?.push(`${event.event ?? "message"}|${event.id ?? ""}|${event.data}`)
    }
  })
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }))
  parser.feed(decoder.decode())
  return events
}

const subjects = { "svc-sdk makeSseParser": sdk, "eventsource-parser": peer } as const
type Subject = keyof typeof subjects

/** Both parsers must read the same events from every body. */
const checkSameEvents = (): void => {
  for (const [name, chunks] of Object.entries(bodies)) {
    const ours: Array<string> = []
    const theirs: Array<string> = []
    sdk(chunks, ours)
    peer(chunks, theirs)
    // eventsource-parser gives an event its block's id, the SDK the stream's last event id: the
    // same here, where every block of the feed has one and no block of the answer has any
    if (JSON.stringify(ours) !== JSON.stringify(theirs))
      throw new Error(`bench/sse: the parsers disagree on ${name}`)
    if (ours.length === 0) throw new Error(`bench/sse: no events in ${name}`)
  }
}

/** Milliseconds of CPU this process has used: less disturbed than wall time by a busy machine. */
const cpuMillis = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

/** Events per CPU second of `subject` parsing `chunks` again and again for about `seconds`. */
const eventsPerSecond = (
  subject: (chunks: ReadonlyArray<Uint8Array>) => number,
  chunks: ReadonlyArray<Uint8Array>,
  seconds: number
): number => {
  const start = cpuMillis()
  const deadline = start + seconds * 1000
  let events = 0
  let now = start
  while (now < deadline) {
    events += subject(chunks)
    now = cpuMillis()
  }
  return (events / (now - start)) * 1000
}

const ratio = (a: number) => Math.round(a * 100) / 100
const megabytes = (chunks: ReadonlyArray<Uint8Array>) =>
  (chunks.reduce((sum, chunk) => sum + chunk.length, 0) / 2 ** 20).toFixed(1)

export const run = async (options: BenchOptions, line: Line = 3): Promise<Section> => {
  const e2e = await endToEnd(options, line)
  if (line === 4) {
    // on the Effect 4 line (a child on Node 24, from bench/run.ts): the end-to-end rows alone
    return {
      title: `Server-sent events end to end, Effect 4 (svc-sdk, Node ${process.versions.node})`,
      method: e2e.method,
      figures: e2e.figures,
      goals: e2e.goals
    }
  }
  checkSameEvents()
  const names = Object.keys(subjects) as Array<Subject>
  const figures: Array<Figure> = []
  const goals: Array<Goal> = []
  for (const body of Object.keys(bodies) as Array<Body>) {
    const chunks = bodies[body]
    for (const name of names)
      eventsPerSecond(subjects[name], chunks, Math.min(0.5, options.seconds))
    const samples = new Map<Subject, Array<number>>(names.map((n) => [n, []]))
    const ratios: Array<number> = []
    for (let r = 0; r < options.runs; r++) {
      // rotate the order so that no subject always runs first
      const order = names.map((_, i) => names[(i + r) % names.length]!)
      const results = new Map<Subject, number>()
      for (const name of order) {
        results.set(name, eventsPerSecond(subjects[name], chunks, options.seconds))
      }
      for (const [name, value] of results) samples.get(name)!.push(value)
      ratios.push(results.get("svc-sdk makeSseParser")! / results.get("eventsource-parser")!)
    }
    const vsPeer = median(ratios)
    figures.push(
      {
        name: `svc-sdk makeSseParser, ${body}`,
        value: median(samples.get("svc-sdk makeSseParser")!),
        unit: "events/s",
        ratios: [{ peer: "eventsource-parser", ratio: ratio(vsPeer) }],
        note: `${megabytes(chunks)} MiB in ${chunks.length} chunks`
      },
      {
        name: `eventsource-parser, ${body}`,
        value: median(samples.get("eventsource-parser")!),
        unit: "events/s"
      }
    )
    goals.push({
      text: `SSE parser ≥ 1.0× eventsource-parser (${body})`,
      met: vsPeer >= 1,
      detail: `${ratio(vsPeer)}× (per run: ${ratios.map(ratio).join(", ")})`
    })
  }
  if (sink === -1) console.log(sink)
  figures.push(...e2e.figures)
  goals.push(...e2e.goals)
  return {
    title: "Server-sent events: parsing",
    method: `Parser: Node ${process.version}, one process; each body (its bytes cut into chunks of 1–16 KiB, the same for both) parsed again and again for ${options.seconds} s of CPU time per run (events per CPU second: a single-threaded parse, timed by process.cpuUsage, which a busy machine disturbs less than wall time), ${options.runs} runs in rotating order; figures are medians of runs, ratios medians of per-run ratios. svc-sdk is fed the bytes; eventsource-parser ${peerVersion} the same bytes through a streaming TextDecoder; both yield the same events (checked first). ${e2e.method}`,
    figures,
    goals
  }
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "5" },
      seconds: { type: "string", default: "1" },
      json: { type: "boolean", default: false },
      line: { type: "string", default: "3" }
    }
  })
  const section = await run(
    { runs: Number(values.runs), seconds: Number(values.seconds) },
    values.line === "4" ? 4 : 3
  )
  // one line for `npm run bench`, which runs the Effect 4 line's rows on another Node
  console.log(values.json ? JSON.stringify(section) : JSON.stringify(section, null, 2))
  process.exit(0)
}
