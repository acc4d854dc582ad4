/**
 * What the benchmarks share: their server processes (bench/stream-server.ts, bench/server.mjs),
 * the clients of either Effect line, and paired slices of two subjects with the order alternating.
 */
import { type ChildProcess, fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** The Effect line under test: 4 (`svc-sdk`) or 3 (`svc-sdk/v3`), whose API is the same here. */
export type Line = 3 | 4

/** Starts a bench server (it sends its port over IPC) in its own process; `stop` ends it. */
const startServer = (
  file: string,
  execArgv: ReadonlyArray<string> = []
): Promise<{ origin: string; stop: () => void }> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = fork(fileURLToPath(new URL(file, import.meta.url)), [], {
      execArgv: [...execArgv],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    child.once("message", (message) => {
      const { port } = message as { port: number }
      resolve({ origin: `http://127.0.0.1:${port}`, stop: () => child.disconnect() })
    })
    child.once("error", reject)
  })

/** Starts bench/stream-server.ts in its own process; `stop` ends it. */
export const startStreamServer = () => startServer("./stream-server.ts", ["--import", "tsx"])

/** Starts bench/server.mjs (a small JSON envelope on every GET) in its own process. */
export const startJsonServer = () => startServer("./server.mjs")

/** The package of `line`, as an application imports it (the built `dist`). */
export const sdkOf = async (line: Line): Promise<typeof import("svc-sdk/v3")> =>
  (await import(line === 4 ? "svc-sdk" : "svc-sdk/v3")) as typeof import("svc-sdk/v3")

/** Reads the Effect API's byte `stream` to its end with `Stream.runForEach`: how many bytes came. */
export const bytesOf = async (stream: Stream.Stream<Uint8Array, unknown>): Promise<number> => {
  let read = 0
  await Effect.runPromise(
    Stream.runForEach(stream, (chunk) =>
      Effect.sync(() => {
        read += chunk.byteLength
      })
    )
  )
  return read
}

/** How much a subject did per second of wall time, and per second of this process's CPU time. */
export interface Rate {
  readonly wall: number
  readonly cpu: number
}

/** One measurement of a subject: how much it did (bytes, events) in about `seconds`, per second. */
export type Measure = (seconds: number) => Promise<Rate>

/** Milliseconds of CPU this process has used. */
const cpuMillis = (): number => {
  const usage = process.cpuUsage()
  return (usage.user + usage.system) / 1000
}

/** Runs `once` (which answers how much it did) again and again for `seconds`; the amount per second. */
export const rate =
  (once: () => Promise<number>): Measure =>
  async (seconds) => {
    let amount = 0
    const started = performance.now()
    const cpuStarted = cpuMillis()
    const deadline = started + seconds * 1000
    do amount += await once()
    while (performance.now() < deadline)
    return {
      wall: amount / ((performance.now() - started) / 1000),
      cpu: amount / ((cpuMillis() - cpuStarted) / 1000)
    }
  }

/** What {@link pairedSlices} measured: per pair, the ratio and each side's rate. */
export interface Paired {
  /** `subject / peer` per second of wall time, per pair. */
  readonly ratios: Array<number>
  /** `subject / peer` per second of this process's CPU time, per pair. */
  readonly cpuRatios: Array<number>
  readonly subject: Array<Rate>
  readonly peer: Array<Rate>
}

/**
 * `subject / peer` in `count` pairs of slices of `seconds` back to back, the order alternating
 * from pair to pair: the machine's drift moves both slices of a pair alike and cancels out of
 * their ratio. Also every slice's own figure, for the table.
 */
export const pairedSlices = async (
  subject: Measure,
  peer: Measure,
  count: number,
  seconds: number
): Promise<Paired> => {
  const out: Paired = { ratios: [], cpuRatios: [], subject: [], peer: [] }
  for (let pair = 0; pair < count; pair++) {
    const subjectFirst = pair % 2 === 0
    const a = await (subjectFirst ? subject : peer)(seconds)
    const b = await (subjectFirst ? peer : subject)(seconds)
    const [ours, theirs] = subjectFirst ? [a, b] : [b, a]
    out.subject.push(ours)
    out.peer.push(theirs)
    out.ratios.push(ours.wall / theirs.wall)
    out.cpuRatios.push(ours.cpu / theirs.cpu)
  }
  return out
}

/** Prints a section as JSON when run as `--json` (for `npm run bench` on another Node). */
export const isMainModule = (url: string): boolean =>
  process.argv[1] !== undefined && fileURLToPath(url) === process.argv[1]
