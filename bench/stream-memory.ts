/**
 * The memory half of bench/stream.ts, run in a child process of its own so that nothing else
 * lives in its heap: downloads `--bytes` through the facade's `stream()` (the web `ReadableStream`
 * read to the end) and prints, as JSON, the resident set size when idle (after a warm-up download
 * and a garbage collection) and its peak during the download: sampled every 50 ms, and Linux's
 * high-water mark (`VmHWM` of /proc/self/status, reset after the idle reading) where there is one.
 *
 *   node --expose-gc --import tsx bench/stream-memory.ts --origin http://127.0.0.1:PORT --bytes N [--line 4]
 */
import { readFileSync, writeFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { type Line, sdkOf } from "./streamKit.js"

const { values } = parseArgs({
  options: {
    origin: { type: "string" },
    bytes: { type: "string" },
    line: { type: "string", default: "3" },
    // `undici`: the same through undici.request (its body read to the end), for comparison
    client: { type: "string", default: "facade" }
  }
})
const origin = values.origin!
const bytes = Number(values.bytes)
const line: Line = values.line === "4" ? 4 : 3

const { createSvc } = await sdkOf(line)
const svc = createSvc(origin)

const { request } = await import("undici")

/** Downloads `size` bytes through undici.request; the byte count. */
const viaUndici = async (size: number): Promise<number> => {
  const response = await request(`${origin}/bytes/${size}`)
  let read = 0
  for await (const chunk of response.body) read += (chunk as Buffer).byteLength
  return read
}

/** Downloads `size` bytes through `stream()`; the byte count. */
const viaStream = async (size: number): Promise<number> => {
  const response = await svc.stream(`/bytes/${size}`)
  if (!response.success) throw new Error(`stream failed: ${response.code} ${response.error}`)
  const reader = response.data.getReader()
  let read = 0
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    read += chunk.value.byteLength
  }
  return read
}

const download = values.client === "undici" ? viaUndici : viaStream

/** Linux's peak resident set size of this process, in bytes; `undefined` elsewhere. */
const highWaterMark = (): number | undefined => {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))
    return match === null ? undefined : Number(match[1]) * 1024
  } catch {
    return undefined
  }
}

/** Resets `VmHWM` to the current resident set size (Linux ≥ 4.0); whether it could. */
const resetHighWaterMark = (): boolean => {
  try {
    writeFileSync("/proc/self/clear_refs", "5")
    return true
  } catch {
    return false
  }
}

const gc = (globalThis as { gc?: () => void }).gc
// warm-up: undici, the stream code and the JIT loaded and settled, then the idle process measured
for (let i = 0; i < 3; i++) await download(32 * 2 ** 20)
gc?.()
await new Promise((resolve) => setTimeout(resolve, 200))
gc?.()
const idle = process.memoryUsage.rss()
const hwmReset = resetHighWaterMark()

let peak = idle
let samples = 0
const sampler = setInterval(() => {
  samples++
  peak = Math.max(peak, process.memoryUsage.rss())
}, 50)
const started = performance.now()
const read = await download(bytes)
const seconds = (performance.now() - started) / 1000
clearInterval(sampler)
peak = Math.max(peak, process.memoryUsage.rss())
const hwm = hwmReset ? highWaterMark() : undefined
if (read !== bytes) throw new Error(`read ${read} bytes of ${bytes}`)

console.log(JSON.stringify({ idle, peak, hwm, samples, seconds, gc: gc !== undefined }))
