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
 * Standalone: `npx tsx bench/sse.ts [--runs 5] [--seconds 1]`.
 */
import { createRequire } from "node:module"
import { createParser } from "eventsource-parser"
import { makeSseParser } from "../src/core/sse.js"
import type { BenchOptions, Figure, Goal, Section } from "./report.js"
import { median, runWhenMain } from "./report.js"

const peerVersion = (
  createRequire(import.meta.url)("eventsource-parser/package.json") as { version: string }
).version

/** A small deterministic generator, so that every run cuts the same chunks. */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed / 0x7fffffff
}

const english = ["The", " answer", " is", " forty", "-two", ",", " of", " course", ".", "\\n"]
const french = [
  "La",
  " réponse",
  " est",
  " qua",
  "rante",
  "-deux",
  ",",
  " bien",
  " sûr",
  " 🙂",
  "\\n"
]

/** An OpenAI-style chat completion stream: one `data:` line of JSON per token, then `[DONE]`. */
const aiAnswer = (tokens: number, words: ReadonlyArray<string>): string => {
  const next = random(7)
  const parts: Array<string> = []
  for (let i = 0; i < tokens; i++) {
    const token = words[Math.floor(next() * words.length)]!
    parts.push(
      `data: {"id":"chatcmpl-9x8Yb2","object":"chat.completion.chunk","created":1732600000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":{"content":"${token}"},"finish_reason":null}]}\n\n`
    )
  }
  parts.push("data: [DONE]\n\n")
  return parts.join("")
}

/** A feed of updates: `id`, `event`, a JSON document of about `size` bytes, a heartbeat now and then. */
const feed = (events: number, size: number): string => {
  const next = random(11)
  const parts: Array<string> = []
  for (let i = 0; i < events; i++) {
    const items: Array<string> = []
    let length = 0
    while (length < size) {
      const item = `{"sku":"A-${Math.floor(next() * 1e6)}","name":"Übergröße ${i}","price":${(next() * 100).toFixed(2)},"stock":${Math.floor(next() * 50)}}`
      items.push(item)
      length += item.length + 1
    }
    parts.push(`id: ${i}\nevent: update\ndata: {"seq":${i},"items":[${items.join(",")}]}\n\n`)
    if (i % 20 === 19) parts.push(": keep-alive\n\n")
  }
  return parts.join("")
}

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

export const run = async (options: BenchOptions): Promise<Section> => {
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
  return {
    title: "Server-sent events: parsing",
    method: `Node ${process.version}, one process; each body (its bytes cut into chunks of 1–16 KiB, the same for both) parsed again and again for ${options.seconds} s of CPU time per run (events per CPU second: a single-threaded parse, timed by process.cpuUsage, which a busy machine disturbs less than wall time), ${options.runs} runs in rotating order; figures are medians of runs, ratios medians of per-run ratios. svc-sdk is fed the bytes; eventsource-parser ${peerVersion} the same bytes through a streaming TextDecoder; both yield the same events (checked first).`,
    figures,
    goals
  }
}

await runWhenMain(import.meta.url, run)
