/**
 * LoginThrottle on Redis (a real `redis-server`): how many commands each `check` sends Redis,
 * counted with MONITOR (commands a script runs inside Redis are not round trips), and how many
 * checks per second one instance makes beside a plain `GET` of one key over the same kind of
 * connection. Then the memory layer's checks per second.
 *
 *   npm run build && npx tsx bench/throttle.ts [--runs 5] [--seconds 1]
 */
import { existsSync } from "node:fs"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { Redis } from "ioredis"
import { LoginThrottle, type LoginThrottleService } from "svc-sdk/v3/Auth"
import { REDIS_SERVER, startRedis } from "../test/support/redis.js"
import {
  type BenchOptions,
  type Figure,
  type Goal,
  median,
  runWhenMain,
  type Section
} from "./report.js"

const IN_FLIGHT = 50
const CHECKS_MONITORED = 1_000
const KEYS = ["account:alice", "address:203.0.113.7"]

/** Calls per second of `call`, `IN_FLIGHT` at a time, for `seconds`. */
const rate = async (call: () => Promise<unknown>, seconds: number): Promise<number> => {
  const end = performance.now() + seconds * 1000
  let done = 0
  const worker = async () => {
    while (performance.now() < end) {
      await call()
      done++
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  return (done / (performance.now() - start)) * 1000
}

/** The throttle of `layer`, for as long as the returned close is not called. */
const open = async (
  layer: Layer.Layer<LoginThrottle, unknown>
): Promise<{ throttle: LoginThrottleService; close: () => Promise<void> }> => {
  const scope = await Effect.runPromise(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return {
    throttle: Context.get(context, LoginThrottle),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** The commands clients send Redis while `body` runs, scripts' own commands left out. */
const monitored = async (url: string, body: () => Promise<void>) => {
  const base = new Redis(url, { lazyConnect: true })
  const monitor = await base.monitor()
  const marker = new Redis(url)
  const seen: Array<string> = []
  let state: "before" | "during" | "after" = "before"
  const tick: Array<() => void> = []
  const nextMarker = () => new Promise<void>((resolve) => tick.push(resolve))
  monitor.on("monitor", (_time: string, args: Array<string>, source: string) => {
    if (args[0]?.toLowerCase() === "echo" && args[1] === "svc-bench-marker") {
      state = state === "before" ? "during" : "after"
      tick.shift()?.()
    } else if (state === "during" && source !== "lua") {
      seen.push(args[0]?.toLowerCase() ?? "")
    }
  })
  const started = nextMarker()
  await marker.echo("svc-bench-marker")
  await started
  await body()
  const ended = nextMarker()
  await marker.echo("svc-bench-marker")
  await ended
  monitor.disconnect()
  await marker.quit()
  return seen
}

export const run = async (options: BenchOptions): Promise<Section> => {
  const figures: Array<Figure> = []
  const goals: Array<Goal> = []
  const memory = await open(LoginThrottle.layerMemory())
  const memoryRates: Array<number> = []
  for (let i = 0; i < options.runs; i++) {
    memoryRates.push(
      await rate(() => Effect.runPromise(memory.throttle.check(KEYS)), options.seconds)
    )
  }
  await memory.close()
  if (existsSync(REDIS_SERVER)) {
    const redis = await startRedis()
    const raw = new Redis(redis.url)
    const redisThrottle = await open(LoginThrottle.layerRedis({ url: redis.url }))
    try {
      const { throttle } = redisThrottle
      await Effect.runPromise(throttle.failure(KEYS))
      await Effect.runPromise(throttle.check(KEYS)) // loads the script
      const commands = await monitored(redis.url, async () => {
        for (let i = 0; i < CHECKS_MONITORED; i++) await Effect.runPromise(throttle.check(KEYS))
      })
      const perCheck = commands.length / CHECKS_MONITORED
      const checks: Array<number> = []
      const gets: Array<number> = []
      const ratios: Array<number> = []
      for (let i = 0; i < options.runs; i++) {
        const check = await rate(() => Effect.runPromise(throttle.check(KEYS)), options.seconds)
        const get = await rate(() => raw.get("svc-sdk:throttle:account:alice"), options.seconds)
        checks.push(check)
        gets.push(get)
        ratios.push(check / get)
      }
      figures.push(
        {
          name: `commands sent per LoginThrottle.check (${KEYS.length} keys, MONITOR over ${CHECKS_MONITORED} checks)`,
          value: perCheck,
          unit: `(${[...new Set(commands)].join(", ")})`
        },
        { name: "one raw ioredis GET", value: median(gets), unit: "calls/s" },
        {
          name: `LoginThrottle.check on Redis (${KEYS.length} keys)`,
          value: median(checks),
          unit: "checks/s",
          ratios: [{ peer: "one raw ioredis GET", ratio: median(ratios) }]
        }
      )
      goals.push({
        text: "LoginThrottle.check on Redis is one round trip for all its keys",
        met: perCheck === 1,
        detail: `${perCheck.toFixed(2)} commands per check (${commands.length} in ${CHECKS_MONITORED} checks of ${KEYS.length} keys)`
      })
    } finally {
      await redisThrottle.close()
      await raw.quit()
      await redis.dispose()
    }
  }
  figures.push({
    name: `LoginThrottle.check in memory (${KEYS.length} keys)`,
    value: median(memoryRates),
    unit: "checks/s"
  })
  return {
    title: "Login throttle: LoginThrottle.check",
    method: `Effect 3 line (svc-sdk/v3/Auth). Round trips: every command one LoginThrottle.layerRedis instance sends a redis-server on loopback during ${CHECKS_MONITORED} sequential checks of ${KEYS.length} keys (after one failure of both), seen with MONITOR; the commands its script runs inside Redis are not round trips and are left out. Rates: ${IN_FLIGHT} calls in flight, ${options.runs} runs of ${options.seconds} s, medians; the check and a raw ioredis GET of one key alternate run by run, and the ratio is the median of the per-run ratios.`,
    figures,
    goals
  }
}

await runWhenMain(import.meta.url, run)
