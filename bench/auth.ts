/**
 * Auth guard throughput: requests/s of one route unguarded, under `requireAuth` with the memory
 * validator, and under `requireAuth` with `cached(http(...))`, on the same server (a child
 * process, bench/auth-server.ts), loaded with autocannon from this process.
 *
 *   npx tsx --conditions=svc-sdk-source bench/auth.ts [--runs 3] [--seconds 3]
 */
import { type ChildProcess, fork } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { type BenchOptions, type Figure, type Goal, median, type Section } from "./report.js"

/** The part of autocannon's API used here (the package ships no types). */
interface LoadResult {
  readonly requests: { readonly average: number }
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
}
type Autocannon = (options: {
  readonly url: string
  readonly connections: number
  readonly pipelining: number
  readonly duration: number
  readonly headers: Record<string, string>
}) => Promise<LoadResult>

const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

const CONNECTIONS = 50
const SESSION_ID = "bench-session-0123456789abcdef"
const GOAL = 0.9
const VALIDATORS = [
  { server: "memory", name: "requireAuth, memory validator" },
  { server: "cached", name: "requireAuth, cached(http(...)) validator" }
] as const
type Ports = Record<(typeof VALIDATORS)[number]["server"], number>

const startServers = (): Promise<{ ports: Ports; child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./auth-server.ts", import.meta.url)), [], {
      execArgv: ["--import", "tsx", "--conditions=svc-sdk-source"],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    child.once("message", (ports) => resolve({ ports: ports as Ports, child }))
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`auth bench server exited with ${code}`)))
  })

/** Average requests/s over `seconds`; every response must be a 2xx. */
const load = async (url: string, seconds: number): Promise<number> => {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    headers: { "x-session-id": SESSION_ID }
  })
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`
    )
  }
  return result.requests.average
}

interface Pair {
  readonly open: Array<number>
  readonly guarded: Array<number>
  /** guarded / open, per run (both measured back to back, so load drift cancels out). */
  readonly ratios: Array<number>
}

/** One run on one server: unguarded and guarded back to back, in alternating order. */
const measurePair = async (port: number, seconds: number, guardedFirst: boolean, pair: Pair) => {
  const url = (path: string) => `http://127.0.0.1:${port}${path}`
  const first = await load(url(guardedFirst ? "/guarded" : "/open"), seconds)
  const second = await load(url(guardedFirst ? "/open" : "/guarded"), seconds)
  const [open, guarded] = guardedFirst ? [second, first] : [first, second]
  pair.open.push(open)
  pair.guarded.push(guarded)
  pair.ratios.push(guarded / open)
}

export const run = async (options: BenchOptions): Promise<Section> => {
  const { ports, child } = await startServers()
  try {
    const pairs = new Map<string, Pair>()
    for (const validator of VALIDATORS) {
      const port = ports[validator.server]
      await load(`http://127.0.0.1:${port}/open`, 1) // warm-up
      await load(`http://127.0.0.1:${port}/guarded`, 1)
      pairs.set(validator.server, { open: [], guarded: [], ratios: [] })
    }
    for (let i = 0; i < options.runs; i++) {
      for (const validator of VALIDATORS) {
        const pair = pairs.get(validator.server)!
        await measurePair(ports[validator.server], options.seconds, i % 2 === 1, pair)
      }
    }
    const figures: Array<Figure> = []
    const goals: Array<Goal> = []
    for (const validator of VALIDATORS) {
      const pair = pairs.get(validator.server)!
      const ratio = median(pair.ratios)
      figures.push(
        { name: `unguarded (${validator.server} server)`, value: median(pair.open), unit: "req/s" },
        {
          name: validator.name,
          value: median(pair.guarded),
          unit: "req/s",
          ratios: [{ peer: "unguarded", ratio }]
        }
      )
      goals.push({
        text: `${validator.name} keeps ≥ ${GOAL}× the unguarded throughput`,
        met: ratio >= GOAL,
        detail: `${ratio.toFixed(2)}× (median of per-run ratios: ${pair.ratios.map((r) => r.toFixed(2)).join(", ")})`
      })
    }
    return {
      title: "Auth guards: requireAuth throughput",
      method: `autocannon, ${CONNECTIONS} connections, ${options.seconds} s per route and run, ${options.runs} runs; per run the unguarded and the guarded route of one server are loaded back to back (order alternating), and the ratio is the median of the per-run ratios. Two @effect/platform-node servers in one child process, each with its validator provided once (memory; cached(http(...)) over a local auth service, ttl 5 min), the same JSON handler on both routes, a valid X-Session-Id on every request.`,
      figures,
      goals
    }
  } finally {
    child.kill()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { runs: { type: "string", default: "3" }, seconds: { type: "string", default: "3" } }
  })
  const section = await run({ runs: Number(values.runs), seconds: Number(values.seconds) })
  console.log(JSON.stringify(section, null, 2))
}
