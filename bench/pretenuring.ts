/**
 * What V8's allocation-site pretenuring costs each face (a diagnostic, no goal): the same client
 * measured in child processes run as Node runs them and with `--no-allocation-site-pretenuring`,
 * the order alternating from run to run. A GET of a small JSON envelope (bench/server.mjs, 32 in
 * flight) through undici.request, the facade and the Effect API on `SvcClient.layerDefault`, and a
 * 16 MiB download through the Effect API's `stream` (bench/stream-server.ts), on both Effect lines.
 *
 * Each child runs one subject, first for a warm-up and then measured: V8 decides which allocation
 * sites to pretenure once its young generation has grown to its largest size, and keeps the
 * decision for the life of the process, so what a process ran before can change it. svc-sdk's own
 * per-request records are made so that V8 never pretenures them (src/core/record.ts): what the
 * figures still show is Effect's and Node's.
 *
 *   npm run bench -- pretenuring
 *   npm run build && npx tsx bench/pretenuring.ts [--runs 3] [--seconds 3]
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import * as Effect from "effect/Effect"
import { request } from "undici"
import { type BenchOptions, type Figure, median, type Section } from "./report.js"
import {
  bytesOf,
  isMainModule,
  type Line,
  sdkOf,
  startJsonServer,
  startStreamServer
} from "./streamKit.js"

const FLAG = "--no-allocation-site-pretenuring"
const IN_FLIGHT = 32
const DOWNLOAD = 16 * 2 ** 20
const WARM_UP_SECONDS = 1.5
const MiB = 2 ** 20

type Subject = "undici.request GET" | "facade GET" | "Effect API GET" | "Effect API stream"
const SUBJECTS: ReadonlyArray<Subject> = [
  "undici.request GET",
  "facade GET",
  "Effect API GET",
  "Effect API stream"
]
const PEER: Subject = "undici.request GET"

/** One subject's rate, measured in this process (the child's side). */
const measureHere = async (
  subject: Subject,
  line: Line,
  origins: { readonly json: string; readonly stream: string },
  seconds: number
): Promise<number> => {
  const { createSvc, SvcClient } = await sdkOf(line)
  const stream = subject === "Effect API stream"
  const origin = stream ? origins.stream : origins.json
  const svc = createSvc(origin)
  const client = await Effect.runPromise(Effect.provide(SvcClient, SvcClient.layerDefault(origin)))
  const path = `/bytes/${DOWNLOAD}`
  const once: Record<Subject, () => Promise<number>> = {
    "undici.request GET": async () => {
      const response = await request(`${origin}/bench`)
      if (response.statusCode !== 200) throw new Error(`undici: ${response.statusCode}`)
      await response.body.json()
      return 1
    },
    "facade GET": async () => {
      const response = await svc.get("/bench")
      if (!response.success) throw new Error(`facade: ${response.code}`)
      return 1
    },
    "Effect API GET": () => Effect.runPromise(Effect.as(client.get("/bench"), 1)),
    "Effect API stream": async () => {
      const read = await bytesOf(client.stream(path))
      if (read !== DOWNLOAD) throw new Error(`stream read ${read} bytes of ${DOWNLOAD}`)
      return read
    }
  }
  const rate = async (run: () => Promise<number>, forSeconds: number, inFlight: number) => {
    let done = 0
    const started = performance.now()
    const end = started + forSeconds * 1000
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (performance.now() < end) {
          // added after the await: the loops run side by side
          const amount = await run()
          done += amount
        }
      })
    )
    return done / ((performance.now() - started) / 1000)
  }
  const inFlight = stream ? 1 : IN_FLIGHT
  await rate(once[subject], WARM_UP_SECONDS, inFlight)
  return rate(once[subject], seconds, inFlight)
}

/** A child process measuring `subject`, with or without pretenuring: its rate. */
const measureInChild = async (
  subject: Subject,
  line: Line,
  pretenuring: boolean,
  origins: { readonly json: string; readonly stream: string },
  seconds: number
): Promise<number | undefined> => {
  let node = process.execPath
  const loader: Array<string> = []
  if (line === 4) {
    const { nodeBinary, OTHER_VERSIONS, supported } = await import("../scripts/node-versions.mjs")
    const version = OTHER_VERSIONS.find((v: string) => v.startsWith("24."))
    if (!supported || version === undefined) return undefined
    node = nodeBinary(version)
    loader.push(
      "--import",
      fileURLToPath(new URL("../scripts/effect4-loader.mjs", import.meta.url))
    )
  }
  const output = execFileSync(
    node,
    [
      ...(pretenuring ? [] : [FLAG]),
      "--import",
      "tsx",
      ...loader,
      fileURLToPath(import.meta.url),
      "--child",
      subject,
      "--line",
      String(line),
      "--json-origin",
      origins.json,
      "--stream-origin",
      origins.stream,
      "--seconds",
      String(seconds)
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }
  )
  return Number(output.trim().split("\n").pop())
}

export const run = async (options: BenchOptions): Promise<Section> => {
  const json = await startJsonServer()
  const stream = await startStreamServer()
  const origins = { json: json.origin, stream: stream.origin }
  const figures: Array<Figure> = []
  try {
    for (const line of [3, 4] as const) {
      const medians = new Map<Subject, { readonly on: number; readonly off: number }>()
      for (const subject of SUBJECTS) {
        const on: Array<number> = []
        const off: Array<number> = []
        for (let round = 0; round < options.runs; round++) {
          // the order alternates: a drift of the machine moves both modes alike
          for (const pretenuring of round % 2 === 0 ? [true, false] : [false, true]) {
            const rate = await measureInChild(subject, line, pretenuring, origins, options.seconds)
            if (rate === undefined) break
            ;(pretenuring ? on : off).push(rate)
          }
        }
        if (on.length > 0 && off.length > 0)
          medians.set(subject, { on: median(on), off: median(off) })
      }
      const peer = medians.get(PEER)
      for (const [subject, { on, off }] of medians) {
        const stream = subject === "Effect API stream"
        const perSecond = stream ? 1 / MiB : 1
        const unit = stream ? "MiB/s" : "req/s"
        const name = `Effect ${line} (Node ${line === 4 ? "24" : process.versions.node.split(".")[0]}), ${subject}`
        // a GET against undici.request's, each in processes of its own, as an application runs one
        const againstPeer = (mine: number, theirs: number | undefined) =>
          stream || subject === PEER || theirs === undefined
            ? []
            : [{ peer: `${PEER} (same mode)`, ratio: Math.round((mine / theirs) * 100) / 100 }]
        figures.push(
          {
            name: `${name}, as Node runs it`,
            value: on * perSecond,
            unit,
            ratios: againstPeer(on, peer?.on)
          },
          {
            name: `${name}, with ${FLAG}`,
            value: off * perSecond,
            unit,
            ratios: [
              { peer: "as Node runs it", ratio: Math.round((off / on) * 100) / 100 },
              ...againstPeer(off, peer?.off)
            ]
          }
        )
      }
    }
  } finally {
    json.stop()
    stream.stop()
  }
  return {
    title: "V8 allocation-site pretenuring (diagnostic)",
    method:
      `Each figure is the median of ${options.runs} child processes, each run with Node's defaults or with ${FLAG}, the order alternating from run to run. ` +
      `A child runs one subject for ${WARM_UP_SECONDS} s, then measures it for ${options.seconds} s: ` +
      `a GET of a small JSON envelope from a node:http server in a separate process on 127.0.0.1, ${IN_FLIGHT} requests in flight (undici.request's GET reads its body as JSON, and the GETs' ratios to it compare processes that each ran one client, as an application does); a ${DOWNLOAD / MiB} MiB download read to the end with Stream.runForEach, one at a time. ` +
      "The Effect API runs on SvcClient.layerDefault (the facade's transport). No goal: the figures show how much of the Effect API's cost is V8's pretenuring, which no library can switch off (docs/design.md).",
    figures,
    goals: []
  }
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      child: { type: "string" },
      line: { type: "string", default: "3" },
      "json-origin": { type: "string" },
      "stream-origin": { type: "string" },
      runs: { type: "string", default: "3" },
      seconds: { type: "string", default: "3" },
      json: { type: "boolean", default: false }
    }
  })
  if (values.child !== undefined) {
    const rate = await measureHere(
      values.child as Subject,
      values.line === "4" ? 4 : 3,
      { json: values["json-origin"] ?? "", stream: values["stream-origin"] ?? "" },
      Number(values.seconds)
    )
    console.log(String(rate))
  } else {
    const section = await run({ runs: Number(values.runs), seconds: Number(values.seconds) })
    console.log(JSON.stringify(section, null, 2))
  }
  process.exit(0)
}
