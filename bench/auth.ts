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
const ROUTES = [
  { path: "/open", name: "unguarded" },
  { path: "/memory", name: "requireAuth, memory validator" },
  { path: "/cached", name: "requireAuth, cached(http(...)) validator" }
] as const

const startServer = (): Promise<{ origin: string; child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./auth-server.ts", import.meta.url)), [], {
      execArgv: ["--import", "tsx", "--conditions=svc-sdk-source"],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    child.once("message", (message) => {
      const { port } = message as { port: number }
      resolve({ origin: `http://127.0.0.1:${port}`, child })
    })
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

export const run = async (options: BenchOptions): Promise<Section> => {
  const { origin, child } = await startServer()
  try {
    for (const route of ROUTES) await load(origin + route.path, 1) // warm-up
    const samples: Record<string, Array<number>> = Object.fromEntries(
      ROUTES.map((route) => [route.path, []])
    )
    for (let i = 0; i < options.runs; i++) {
      // rotate the order so that no route always runs first or last
      const order = ROUTES.map((_, k) => ROUTES[(k + i) % ROUTES.length]!)
      for (const route of order) {
        samples[route.path]?.push(await load(origin + route.path, options.seconds))
      }
    }
    const value = (path: string) => median(samples[path] ?? [])
    const open = value("/open")
    const figures: Array<Figure> = ROUTES.map((route) => ({
      name: route.name,
      value: value(route.path),
      unit: "req/s",
      ...(route.path === "/open"
        ? {}
        : { ratios: [{ peer: "unguarded", ratio: value(route.path) / open }] })
    }))
    const goals: Array<Goal> = ROUTES.filter((route) => route.path !== "/open").map((route) => {
      const ratio = value(route.path) / open
      return {
        text: `${route.name} keeps ≥ ${GOAL}× the unguarded throughput`,
        met: ratio >= GOAL,
        detail: `${ratio.toFixed(2)}× (${Math.round(value(route.path))} vs ${Math.round(open)} req/s)`
      }
    })
    return {
      title: "Auth guards: requireAuth throughput",
      method: `autocannon, ${CONNECTIONS} connections, ${options.seconds} s per route and run, ${options.runs} runs (median), routes in rotating order after a 1 s warm-up each; one @effect/platform-node server in a child process, the same JSON handler on every route, a valid X-Session-Id on every request; cached(http(...)) asks a local auth service (ttl 5 min).`,
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
