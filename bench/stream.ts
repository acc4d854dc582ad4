/**
 * Download throughput and memory of `stream` (SPEC 4.8): the facade's `stream()` (its web
 * `ReadableStream` read to the end) and the Effect API's `stream` (a `Stream` run to the end,
 * counting bytes) against raw `undici.request` (its body read to the end), all downloading the same
 * body from the same server in a separate process (bench/stream-server.ts: one pre-allocated
 * 64 KiB chunk written again and again). Ratios come from paired slices, the order alternating.
 * Then a 1 GiB download through `stream()` in a child process (bench/stream-memory.ts) that
 * measures its resident set size idle and at its peak.
 *
 * It measures the built package (`dist`), so build first. The Effect 3 line by default; the
 * Effect 4 line with `--line 4` (Node ≥ 22.19 and scripts/effect4-loader.mjs, as bench/client.ts):
 *
 *   npm run build && npx tsx bench/stream.ts [--runs 3] [--seconds 2]
 */
import { execFileSync } from "node:child_process"
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
import {
  bytesOf,
  isMainModule,
  type Line,
  type Measure,
  pairedSlices,
  rate,
  sdkOf,
  startStreamServer
} from "./streamKit.js"

/** Bytes of one download in the throughput slices. */
const DOWNLOAD = 16 * 2 ** 20
/** Bytes of the download whose memory is measured, and the most its peak may add to the idle process. */
const BIG_DOWNLOAD = 2 ** 30
const MEMORY_GOAL = 64 * 2 ** 20
/** Seconds each subject runs before the measurement. */
const WARM_UP_SECONDS = 2
/** Length of one paired slice, in seconds. */
const SLICE_SECONDS = 0.5
const GOAL = 0.9

const MiB = 2 ** 20

const subjectsOf = async (origin: string, line: Line) => {
  const { createSvc, SvcClient } = await sdkOf(line)
  const path = `/bytes/${DOWNLOAD}`
  const svc = createSvc(origin)
  const client = await Effect.runPromise(Effect.provide(SvcClient, SvcClient.layerDefault(origin)))
  const checked = (read: number, who: string) => {
    if (read !== DOWNLOAD) throw new Error(`${who} read ${read} bytes of ${DOWNLOAD}`)
    return read
  }
  const subjects: Record<string, () => Promise<number>> = {
    facade: async () => {
      const response = await svc.stream(path)
      if (!response.success) throw new Error(`stream failed: ${response.code}`)
      const reader = response.data.getReader()
      let read = 0
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        read += chunk.value.byteLength
      }
      return checked(read, "facade")
    },
    "Effect API (layerDefault)": async () => {
      return checked(await bytesOf(client.stream(path)), "Effect API")
    },
    "undici.request": async () => {
      const response = await request(`${origin}${path}`)
      if (response.statusCode !== 200) throw new Error(`undici: ${response.statusCode}`)
      let read = 0
      for await (const chunk of response.body) read += (chunk as Buffer).byteLength
      return checked(read, "undici.request")
    }
  }
  return subjects
}

/** The memory child's answer (bench/stream-memory.ts). */
interface MemoryReading {
  readonly idle: number
  readonly peak: number
  readonly hwm?: number
  readonly samples: number
  readonly seconds: number
  readonly gc: boolean
}

const measureMemory = (origin: string, line: Line, client: "facade" | "undici"): MemoryReading => {
  const output = execFileSync(
    process.execPath,
    [
      "--expose-gc",
      ...process.execArgv,
      fileURLToPath(new URL("./stream-memory.ts", import.meta.url)),
      "--origin",
      origin,
      "--bytes",
      String(BIG_DOWNLOAD),
      "--line",
      String(line),
      "--client",
      client
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }
  )
  return JSON.parse(output.trim().split("\n").pop() ?? "") as MemoryReading
}

/** Pairs of slices per subject: as many as `runs` × `seconds` hold, at least 6. */
const pairsOf = (options: BenchOptions) =>
  Math.max(6, Math.round((options.runs * options.seconds) / SLICE_SECONDS))

export const run = async (options: BenchOptions, line: Line = 3): Promise<Section> => {
  const { origin, stop } = await startStreamServer()
  const figures: Array<Figure> = []
  const goals: Array<Goal> = []
  try {
    const subjects = await subjectsOf(origin, line)
    const measures: Record<string, Measure> = Object.fromEntries(
      Object.entries(subjects).map(([name, once]) => [name, rate(once)])
    )
    // warm-up: the JIT, undici's connection pool, the stream code loaded
    for (const measure of Object.values(measures)) await measure(WARM_UP_SECONDS)
    const count = pairsOf(options)
    const peer = "undici.request"
    const peerSlices: Array<number> = []
    for (const name of ["facade", "Effect API (layerDefault)"]) {
      const paired = await pairedSlices(measures[name]!, measures[peer]!, count, SLICE_SECONDS)
      peerSlices.push(...paired.peer.map((r) => r.wall))
      const measured = median(paired.ratios)
      const perCpu = median(paired.cpuRatios)
      figures.push({
        name: `${name} stream()`,
        value: median(paired.subject.map((r) => r.wall)) / MiB,
        unit: "MiB/s",
        ratios: [{ peer, ratio: Math.round(measured * 100) / 100 }],
        note: `per CPU second of this process: ${perCpu.toFixed(2)}× ${peer}`
      })
      goals.push({
        text: `${name === "facade" ? "facade" : "Effect API on SvcClient.layerDefault"} stream ≥ ${GOAL}× ${peer} (download throughput)`,
        met: measured >= GOAL,
        detail: `${ratioText(measured, GOAL)}× (median of ${paired.ratios.length} paired slices; quartiles ${quartiles(paired.ratios)})`
      })
    }
    figures.push({
      name: `${peer}, body read to the end`,
      value: median(peerSlices) / MiB,
      unit: "MiB/s"
    })
    const memory = measureMemory(origin, line, "facade")
    const reference = measureMemory(origin, line, "undici")
    const peakOf = (reading: MemoryReading) => Math.max(reading.peak, reading.hwm ?? 0)
    const growth = peakOf(memory) - memory.idle
    const note = (reading: MemoryReading) =>
      `${reading.samples} samples every 50 ms${reading.hwm === undefined ? "" : " and VmHWM"}; ${(BIG_DOWNLOAD / MiB / reading.seconds).toFixed(0)} MiB/s`
    figures.push(
      { name: "idle process (after warm-up)", value: memory.idle / MiB, unit: "MiB RSS" },
      {
        name: `peak during a ${BIG_DOWNLOAD / 2 ** 30} GiB stream() download`,
        value: peakOf(memory) / MiB,
        unit: "MiB RSS",
        note: note(memory)
      },
      {
        name: `growth over idle, ${BIG_DOWNLOAD / 2 ** 30} GiB through stream()`,
        value: growth / MiB,
        unit: "MiB"
      },
      {
        name: `growth over idle, ${BIG_DOWNLOAD / 2 ** 30} GiB through undici.request (the same child, for reference)`,
        value: (peakOf(reference) - reference.idle) / MiB,
        unit: "MiB",
        note: note(reference)
      }
    )
    goals.push({
      text: `peak RSS over a ${BIG_DOWNLOAD / 2 ** 30} GiB stream() download within ${MEMORY_GOAL / MiB} MiB of the idle process`,
      met: growth <= MEMORY_GOAL,
      detail: `+${(growth / MiB).toFixed(1)} MiB (idle ${(memory.idle / MiB).toFixed(1)} MiB, peak ${(peakOf(memory) / MiB).toFixed(1)} MiB; undici.request alone +${((peakOf(reference) - reference.idle) / MiB).toFixed(1)} MiB)`
    })
  } finally {
    stop()
  }
  return {
    title: `Streams: download throughput and memory, Effect ${line} (${line === 4 ? "svc-sdk" : "svc-sdk/v3"}, Node ${process.versions.node})`,
    method:
      `GET of a ${DOWNLOAD / MiB} MiB application/octet-stream body (Content-Length, one pre-allocated 64 KiB chunk written as fast as the socket takes it) from a node:http server in a separate process on 127.0.0.1, one download at a time (after a 2 s warm-up of each), each read to the end: the facade's stream() through its web ReadableStream's reader, the Effect API on SvcClient.layerDefault (the facade's transport) with Stream.runForEach counting bytes, and undici.request with for await over its body. ` +
      `Ratios from ${pairsOf(options)} pairs of ${SLICE_SECONDS} s slices of a subject and undici.request back to back, the order alternating; figures and ratios are medians of the slices and of the per-pair ratios (wall time; the note gives the same ratio per CPU second of the client's process, which a busy machine disturbs less). ` +
      `Memory: a child process (node --expose-gc) downloads 3 × 32 MiB to warm up, collects garbage, reads its RSS (idle), then downloads ${BIG_DOWNLOAD / 2 ** 30} GiB through stream(), sampling its RSS every 50 ms and reading Linux's VmHWM (reset after the idle reading); the peak is the larger. The same child reading the same body through undici.request gives the reference growth.`,
    figures,
    goals
  }
}

if (isMainModule(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "3" },
      seconds: { type: "string", default: "1" },
      json: { type: "boolean", default: false },
      line: { type: "string", default: "3" }
    }
  })
  const section = await run(
    { runs: Number(values.runs), seconds: Number(values.seconds) },
    values.line === "4" ? 4 : 3
  )
  console.log(values.json ? JSON.stringify(section) : JSON.stringify(section, null, 2))
  process.exit(0)
}
