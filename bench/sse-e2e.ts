/**
 * Server-sent events end to end (the rows of bench/sse.ts that go through the network): events
 * per second through the facade's `sse()` (iterated with `for await`) and the Effect API's `sse`
 * (`Stream.runCount`) reading a loopback server's event stream (bench/stream-server.ts, in a
 * separate process), against `undici.request` with eventsource-parser (its body decoded by a
 * streaming `TextDecoder`, as a caller of it does) reading the same bytes from the same server.
 * Ratios come from paired slices, the order alternating. It measures the built package (`dist`).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { createParser } from "eventsource-parser"
import { request } from "undici"
import {
  type BenchOptions,
  type Figure,
  type Goal,
  median,
  quartiles,
  ratioText
} from "./report.js"
import { type Line, pairedSlices, rate, sdkOf, startStreamServer } from "./streamKit.js"

/** The bodies read, by their name on the server. */
const BODIES = {
  english: "AI answer in English (small events, ASCII)",
  feed: "feed (4 KiB events)"
} as const
type Body = keyof typeof BODIES

/** A token event of the AI answer, as a user's schema reads it (both lines spell it the same). */
const Token = Schema.Struct({
  choices: Schema.Array(Schema.Struct({ delta: Schema.Struct({ content: Schema.String }) }))
})

/** Seconds each subject runs before the measurement. */
const WARM_UP_SECONDS = 2
/** Length of one paired slice, in seconds. */
const SLICE_SECONDS = 0.5
const GOAL = 1

const subjectsOf = async (origin: string, line: Line, body: Body) => {
  const { createSvc, SvcClient } = await sdkOf(line)
  const path = `/events/${body}`
  const svc = createSvc(origin)
  const client = await Effect.runPromise(Effect.provide(SvcClient, SvcClient.layerDefault(origin)))
  let expected: number | undefined
  /** Every subject must read the same number of events from every request. */
  const checked = (events: number, who: string) => {
    expected ??= events
    if (events !== expected || events === 0)
      throw new Error(`bench/sse: ${who} read ${events} events of ${expected} from ${path}`)
    return events
  }
  let sink = 0
  const subjects = {
    "undici.request + eventsource-parser": async () => {
      const response = await request(`${origin}${path}`)
      if (response.statusCode !== 200) throw new Error(`undici: ${response.statusCode}`)
      let events = 0
      const parser = createParser({
        onEvent: (event) => {
          events++
          sink += event.data.length
        }
      })
      const decoder = new TextDecoder()
      for await (const chunk of response.body)
        parser.feed(decoder.decode(chunk as Buffer, { stream: true }))
      parser.feed(decoder.decode())
      return checked(events, "undici.request + eventsource-parser")
    },
    facade: async () => {
      const response = await svc.sse(path, { reconnect: false })
      if (!response.success) throw new Error(`sse failed: ${response.code}`)
      let events = 0
      for await (const event of response.data) {
        events++
        sink += event.data.length
      }
      const closed = await response.data.closed
      if (!closed.success) throw new Error(`sse ended with ${closed.code}`)
      return checked(events, "facade")
    },
    // each token's JSON decoded with an effect/Schema; the answer's last event, `[DONE]`, is not
    // JSON and ends the events with DECODE_ERROR: every token before it is read
    "facade, with a schema": async () => {
      const response = await svc.sse(path, { reconnect: false, schema: Token })
      if (!response.success) throw new Error(`sse failed: ${response.code}`)
      let events = 0
      for await (const event of response.data) {
        events++
        sink += event.data.choices.length
      }
      const closed = await response.data.closed
      if (closed.success || closed.code !== "DECODE_ERROR")
        throw new Error("sse with a schema did not end on [DONE]")
      if (events + 1 !== expected) throw new Error(`sse with a schema read ${events} tokens`)
      return events
    },
    // the events counted by the stream itself, a chunk at a time: an Effect per event (Stream.tap,
    // runForEach) is Effect's own cost, some 1–2 µs each, more than parsing the event
    "Effect API (layerDefault)": async () =>
      checked(
        await Effect.runPromise(Stream.runCount(client.sse(path, { reconnect: false }))),
        "Effect API"
      )
  }
  return { subjects, sink: () => sink }
}

/** The end-to-end rows and goals on `line`, and how they were measured. */
export const endToEnd = async (
  options: BenchOptions,
  line: Line
): Promise<{ figures: Array<Figure>; goals: Array<Goal>; method: string }> => {
  const { origin, stop } = await startStreamServer()
  const figures: Array<Figure> = []
  const goals: Array<Goal> = []
  const count = Math.max(6, Math.round((options.runs * options.seconds) / SLICE_SECONDS))
  const peer = "undici.request + eventsource-parser"
  try {
    for (const body of Object.keys(BODIES) as Array<Body>) {
      const { subjects } = await subjectsOf(origin, line, body)
      const measures = {
        facade: rate(subjects.facade),
        "Effect API (layerDefault)": rate(subjects["Effect API (layerDefault)"]),
        [peer]: rate(subjects[peer])
      }
      // warm-up: the Effect API's first second runs some 10× slower than its next (the JIT)
      for (const measure of Object.values(measures)) await measure(WARM_UP_SECONDS)
      const peerSlices: Array<number> = []
      for (const name of ["facade", "Effect API (layerDefault)"] as const) {
        const paired = await pairedSlices(measures[name], measures[peer]!, count, SLICE_SECONDS)
        peerSlices.push(...paired.peer.map((r) => r.wall))
        const measured = median(paired.ratios)
        figures.push({
          name: `end to end: ${name === "facade" ? "facade sse()" : "Effect API sse (layerDefault)"}, ${BODIES[body]}`,
          value: median(paired.subject.map((r) => r.wall)),
          unit: "events/s",
          ratios: [{ peer, ratio: Math.round(measured * 100) / 100 }],
          note: `per CPU second of the client: ${median(paired.cpuRatios).toFixed(2)}×`
        })
        goals.push({
          text: `${name === "facade" ? "facade sse()" : "Effect API sse on SvcClient.layerDefault"} ≥ ${GOAL.toFixed(1)}× ${peer}, end to end (${BODIES[body]}, Effect ${line})`,
          met: measured >= GOAL,
          detail: `${ratioText(measured, GOAL)}× (median of ${paired.ratios.length} paired slices; quartiles ${quartiles(paired.ratios)})`
        })
      }
      figures.push({
        name: `end to end: ${peer}, ${BODIES[body]}`,
        value: median(peerSlices),
        unit: "events/s"
      })
      if (body === "english") {
        const schema = rate(subjects["facade, with a schema"])
        await schema(WARM_UP_SECONDS)
        figures.push({
          name: `end to end: facade sse() with an effect/Schema per token, ${BODIES[body]}`,
          value: (await schema(options.seconds)).wall,
          unit: "events/s",
          note: "no goal"
        })
      }
    }
  } finally {
    stop()
  }
  return {
    figures,
    goals,
    method:
      `End to end (Effect ${line}, ${line === 4 ? "svc-sdk" : "svc-sdk/v3"} built, Node ${process.versions.node}): a node:http server in a separate process on 127.0.0.1 sends the same body as text/event-stream (chunked, in writes of 16 KiB) on every GET; one request at a time (after a 2 s warm-up of each), read to its end: the facade's sse() (reconnect off) iterated with for await, the Effect API on SvcClient.layerDefault with Stream.runCount, and undici.request with eventsource-parser fed its body through a streaming TextDecoder; every request must yield the same number of events. The AI answer is also read by the facade with an effect/Schema decoding each token's JSON, for ${options.seconds} s after a warm-up (a figure, no goal). ` +
      `Ratios from ${count} pairs of ${SLICE_SECONDS} s slices of a subject and the peer back to back, the order alternating; figures and ratios are medians of the slices and of the per-pair ratios (wall time; the note gives the same ratio per CPU second of the client's process).`
  }
}
