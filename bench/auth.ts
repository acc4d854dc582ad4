/**
 * Auth guard throughput: requests/s of one route unguarded, under `requireAuth` with the memory
 * validator, with `cached(http(...))`, and with the Redis store (a real `redis-server`, when
 * installed; against a handler doing one raw Redis GET per request), on the same server (a child
 * process, bench/auth-server.ts), loaded with autocannon
 * from this process. Then a bounded run against a validator that flaps, counting wrong answers.
 *
 * The server runs the built package (`dist`), so build first:
 *
 *   npm run build && npx tsx bench/auth.ts [--runs 3] [--seconds 3]
 */
import { type ChildProcess, fork } from "node:child_process"
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { Redis } from "ioredis"
import { request } from "undici"
import { REDIS_SERVER, type RedisServer, startRedis } from "../test/support/redis.js"
import {
  type BenchOptions,
  type Figure,
  type Goal,
  median,
  quartiles,
  ratioText,
  type Section
} from "./report.js"

/** The part of autocannon's API used here (the package ships no types). */
interface LoadResult {
  readonly requests: { readonly average: number; readonly total: number }
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
}
type Autocannon = (options: {
  readonly url: string
  readonly connections: number
  readonly pipelining: number
  readonly duration?: number
  readonly amount?: number
  readonly headers: Record<string, string>
}) => Promise<LoadResult>

const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

const CONNECTIONS = 50
const GOAL = 0.9
/**
 * Each server's guarded route, against its baseline route: unguarded, or one raw Redis GET; and the
 * floor, the least middleware that provides a user (`/minimal`), measured as a figure, not a goal.
 */
const VALIDATORS = [
  {
    server: "memory",
    route: "/guarded",
    name: "requireAuth, memory validator",
    baseline: "/open",
    peer: "unguarded"
  },
  {
    server: "memory",
    route: "/minimal",
    name: "floor: a minimal Effect middleware (the X-Session-Id header, a Map lookup, Effect.provideService of the user)",
    baseline: "/open",
    peer: "unguarded",
    floor: true
  },
  {
    server: "cached",
    route: "/guarded",
    name: "requireAuth, cached(http(...)) validator",
    baseline: "/open",
    peer: "unguarded"
  },
  {
    server: "redis",
    route: "/guarded",
    name: "requireAuth, SessionStore.layerRedis validator",
    baseline: "/raw",
    peer: "a handler doing one raw Redis GET"
  }
] as const
interface Served {
  readonly port: number
  /** A session id the server's validator accepts. */
  readonly id: string
}
type Ports = Partial<Record<(typeof VALIDATORS)[number]["server"] | "flapping", Served>>

const startServers = (
  redisUrl: string | undefined
): Promise<{ ports: Ports; child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./auth-server.ts", import.meta.url)), [], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: { ...process.env, ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl }) }
    })
    child.once("message", (ports) => resolve({ ports: ports as Ports, child }))
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`auth bench server exited with ${code}`)))
  })

/** Average requests/s over `seconds`; every response must be a 2xx. */
const load = async (url: string, seconds: number, id: string): Promise<number> => {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    headers: { "x-session-id": id }
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
  /** guarded / baseline, per slice pair (measured back to back, so load drift cancels out). */
  readonly ratios: Array<number>
}

/** Length of one measured slice, in seconds. */
const SLICE_SECONDS = 1

/**
 * One run on one server: `seconds` pairs of one-second slices, baseline and guarded back to back,
 * the order alternating from pair to pair. Short slices in pairs keep the machine's drift (both
 * routes share two cores with autocannon) out of each ratio.
 */
const measurePairs = async (
  served: Served,
  route: string,
  baseline: string,
  seconds: number,
  pair: Pair
) => {
  const url = (path: string) => `http://127.0.0.1:${served.port}${path}`
  for (let slice = 0; slice < Math.max(1, Math.round(seconds / SLICE_SECONDS)); slice++) {
    const guardedFirst = pair.ratios.length % 2 === 1
    const first = await load(url(guardedFirst ? route : baseline), SLICE_SECONDS, served.id)
    const second = await load(url(guardedFirst ? baseline : route), SLICE_SECONDS, served.id)
    const [open, guarded] = guardedFirst ? [second, first] : [first, second]
    pair.open.push(open)
    pair.guarded.push(guarded)
    pair.ratios.push(guarded / open)
  }
}

const FLAPPING_REQUESTS = 10_000
/** Requests of the Redis server's guarded route over which its writes to Redis are counted. */
const WRITES_REQUESTS = 10_000

/** What Redis did for one request of a route, on average: bytes appended to its log, µs of its time. */
interface RedisCost {
  readonly appended: number
  readonly micros: number
}

/**
 * What Redis appends to its log (AOF, `appendfsync always`: one fsync per write) and the time it
 * spends running commands (`INFO commandstats`, every command's `usec` summed) per request of a
 * route of the Redis server (the guarded route: what a validation writes and costs Redis).
 */
const redisCostPerRequest = async (
  redisUrl: string,
  served: Served,
  path: string
): Promise<RedisCost> => {
  const admin = new Redis(redisUrl)
  const aofSize = async () =>
    Number((await admin.info("persistence")).match(/aof_current_size:(\d+)/)?.[1] ?? Number.NaN)
  const commandMicros = async () =>
    [
      ...(await admin.info("commandstats")).matchAll(
        /^cmdstat_(?!config)[^:]+:calls=\d+,usec=(\d+)/gm
      )
    ]
      .map((match) => Number(match[1]))
      .reduce((sum, micros) => sum + micros, 0)
  try {
    const before = await aofSize()
    await admin.config("RESETSTAT")
    const result = await autocannon({
      url: `http://127.0.0.1:${served.port}${path}`,
      connections: CONNECTIONS,
      pipelining: 1,
      amount: WRITES_REQUESTS,
      headers: { "x-session-id": served.id }
    })
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${path} failed`)
    // the requests' commands only: not the CONFIG RESETSTAT, which counts itself, nor the INFO
    // being read, which is counted once it has answered
    const micros = await commandMicros()
    return {
      appended: ((await aofSize()) - before) / result.requests.total,
      micros: micros / result.requests.total
    }
  } finally {
    admin.disconnect()
  }
}

/**
 * 10,000 requests at 32 in flight against a validator that fails every third lookup: a third with
 * the valid id, a third with an unknown id, a third with none. Wrong: a request without a valid id
 * that reached the handler (200), or a valid id refused as invalid (401; 500 is the honest answer
 * while the validator is down).
 */
const flappingRun = async (served: Served) => {
  const counts = { granted: 0, refused: 0, unavailable: 0, wrong: 0 }
  let next = 0
  const worker = async () => {
    while (next < FLAPPING_REQUESTS) {
      const kind = next++ % 3
      const headers: Record<string, string> =
        kind === 0
          ? { "x-session-id": served.id }
          : kind === 1
            ? { "x-session-id": "forged-id" }
            : {}
      const response = await request(`http://127.0.0.1:${served.port}/guarded`, { headers })
      const body = await response.body.text()
      const valid = kind === 0
      if (response.statusCode === 200) {
        counts.granted++
        if (!valid || JSON.parse(body).id !== "u1") counts.wrong++
      } else if (response.statusCode === 500) {
        counts.unavailable++
      } else {
        counts.refused++
        if (valid || response.statusCode !== 401) counts.wrong++
      }
    }
  }
  await Promise.all(Array.from({ length: 32 }, worker))
  return counts
}

export const run = async (options: BenchOptions): Promise<Section> => {
  let redis: RedisServer | undefined
  if (existsSync(REDIS_SERVER)) redis = await startRedis()
  const { ports, child } = await startServers(redis?.url)
  try {
    const pairs = new Map<string, Pair>()
    const measured = VALIDATORS.filter((validator) => ports[validator.server] !== undefined)
    for (const validator of measured) {
      const served = ports[validator.server]!
      await load(`http://127.0.0.1:${served.port}${validator.baseline}`, 1, served.id) // warm-up
      await load(`http://127.0.0.1:${served.port}${validator.route}`, 1, served.id)
      pairs.set(validator.name, { open: [], guarded: [], ratios: [] })
    }
    for (let i = 0; i < options.runs; i++) {
      for (const validator of measured) {
        const pair = pairs.get(validator.name)!
        const served = ports[validator.server]!
        await measurePairs(served, validator.route, validator.baseline, options.seconds, pair)
      }
    }
    const figures: Array<Figure> = []
    const goals: Array<Goal> = []
    for (const validator of measured) {
      const pair = pairs.get(validator.name)!
      const ratio = median(pair.ratios)
      figures.push(
        {
          name: `${validator.peer} (${validator.server} server${"floor" in validator ? ", beside the floor" : ""})`,
          value: median(pair.open),
          unit: "req/s"
        },
        {
          name: validator.name,
          value: median(pair.guarded),
          unit: "req/s",
          ratios: [{ peer: validator.peer, ratio }],
          note: `quartiles ${quartiles(pair.ratios)}`
        }
      )
      if ("floor" in validator) continue
      goals.push({
        text: `${validator.name} keeps ≥ ${GOAL}× the throughput of ${validator.peer}`,
        met: ratio >= GOAL,
        detail: `${ratioText(ratio, GOAL)}× (median of ${pair.ratios.length} paired slices; quartiles ${quartiles(pair.ratios)})`
      })
    }
    if (redis !== undefined && ports.redis !== undefined) {
      const guarded = await redisCostPerRequest(redis.url, ports.redis, "/guarded")
      const raw = await redisCostPerRequest(redis.url, ports.redis, "/raw")
      figures.push(
        {
          name: `bytes SessionStore.layerRedis's validation appends to Redis's log (AOF) per guarded request, over ${WRITES_REQUESTS} requests of one session`,
          value: guarded.appended,
          unit: "B"
        },
        {
          name: `Redis's time per guarded request (INFO commandstats), over ${WRITES_REQUESTS} requests of one session`,
          value: guarded.micros,
          unit: "µs",
          ratios: [
            { peer: "a handler doing one raw Redis GET", ratio: guarded.micros / raw.micros }
          ]
        },
        {
          name: `Redis's time per request of a handler doing one raw Redis GET, over ${WRITES_REQUESTS} requests`,
          value: raw.micros,
          unit: "µs"
        }
      )
      goals.push({
        text: "a session in steady use costs Redis no write per request (a use is written once it is due, at most once a minute)",
        met: guarded.appended < 1,
        detail: `${guarded.appended.toFixed(2)} B appended per request`
      })
    }
    const flaps = await flappingRun(ports.flapping!)
    figures.push({
      name: `flapping validator, ${FLAPPING_REQUESTS} requests: wrong authorisations`,
      value: flaps.wrong,
      unit: `(${flaps.granted} granted, ${flaps.refused} refused, ${flaps.unavailable} unavailable)`
    })
    goals.push({
      text: `zero wrong authorisations in ${FLAPPING_REQUESTS} requests with a flapping validator`,
      met: flaps.wrong === 0 && flaps.granted > 0 && flaps.refused > 0 && flaps.unavailable > 0,
      detail: `${flaps.wrong} wrong; ${flaps.granted} granted, ${flaps.refused} refused (401), ${flaps.unavailable} unavailable (500)`
    })
    return {
      title: "Auth guards: requireAuth throughput",
      method: `autocannon, ${CONNECTIONS} connections, ${options.runs} runs of ${options.seconds} s per route; each run loads the unguarded and the guarded route of one server in pairs of ${SLICE_SECONDS} s slices back to back (order alternating), and the ratio is the median of the per-pair ratios. @effect/platform-node servers in one child process, each with its validator provided once (memory; cached(http(...)) over a local auth service, ttl 5 min; SessionStore.layerRedis over a redis-server on loopback, every request a Redis round trip, measured against the same handler doing one raw ioredis GET of the session as JSON, unguarded), the same JSON handler on every route, a valid X-Session-Id on every request. The floor: the memory server's /minimal route, under the least an Effect middleware can do to provide a user (no validator, no isolation, no check of the id), paired with /open as requireAuth is. The flapping run: ${FLAPPING_REQUESTS} requests, 32 in flight, valid, unknown and absent ids in turn, a fromPromise validator failing every third lookup.`,
      figures,
      goals
    }
  } finally {
    child.kill()
    await redis?.dispose()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { runs: { type: "string", default: "3" }, seconds: { type: "string", default: "3" } }
  })
  const section = await run({ runs: Number(values.runs), seconds: Number(values.seconds) })
  console.log(JSON.stringify(section, null, 2))
}
