/**
 * The session's storage detection, loaded on demand, in Debian's Chromium: a page built as an
 * app's production build splits it (the detection a chunk of its own) is served with that chunk
 * slow or missing. A page's first requests still find the session in localStorage when the chunk
 * is slow (under their `timeout`, which the chunk's load counts toward, as the network does);
 * when it is missing, they go without a session and say why.
 */
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  bundleSplit,
  CHROMIUM,
  hasChromium,
  LINES,
  launchChromium,
  serveSplit
} from "./chromium.js"
import { type ApiServer, startApiServer } from "./servers.js"

if (!hasChromium) {
  console.warn(`Skipping the storage chunk suite: ${CHROMIUM} is absent.`)
}

/** How the page server answers for the detection's chunk. */
type ChunkMode = "slow" | "missing"

interface Whoami {
  readonly first: string | null
  readonly second: string | null
  readonly errors: ReadonlyArray<string>
}

describe.skipIf(!hasChromium).each(LINES)("storage detection's chunk, Effect %s", (line) => {
  let browser: Browser
  let api: ApiServer
  let files: ReadonlyMap<string, string>
  let mode: ChunkMode = "slow"
  const chunkFetches: Array<string> = []
  let site: { url: string; close: () => void }

  beforeAll(async () => {
    files = await bundleSplit("./detect-page.ts", line)
    site = await serveSplit(files, "detect-page", (path, send, response) => {
      if (!/\/Detect-/.test(path)) return false
      chunkFetches.push(mode)
      if (mode === "missing") response.writeHead(404).end()
      else setTimeout(send, 700)
      return true
    })
    api = await startApiServer()
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    site?.close()
    await api?.close()
  })

  /** A page's first two requests, `pause` ms apart. */
  const firstRequests = async (chunk: ChunkMode, timeout: number, pause = 0): Promise<Whoami> => {
    mode = chunk
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      await page.goto(site.url)
      await page.evaluate(() => localStorage.setItem("session_id", "stored-id"))
      await page.waitForFunction(() => "whoami" in window)
      return await page.evaluate(
        ([api, timeout, pause]) =>
          (
            window as unknown as {
              whoami: (api: string, timeout: number, pause: number) => Promise<Whoami>
            }
          ).whoami(api, timeout, pause),
        [api.url, timeout, pause] as const
      )
    } finally {
      await context.close()
    }
  }

  it("is a chunk of its own, fetched when a client is made", () => {
    expect([...files.keys()].filter((path) => /\/Detect-/.test(path))).toHaveLength(1)
  })

  it("a slow chunk: the first requests wait for it and carry the stored session", async () => {
    const before = chunkFetches.length
    const outcome = await firstRequests("slow", 3000)
    expect(outcome).toEqual({ first: "stored-id", second: "stored-id", errors: [] })
    expect(chunkFetches.length - before).toBe(1)
  })

  it("a chunk slower than the timeout: that request times out on its session lookup; once it has come, the next carries the session", async () => {
    const outcome = await firstRequests("slow", 300, 1500)
    expect(outcome.first).toBe("TIMEOUT")
    expect(outcome.second).toBe("stored-id")
    expect(outcome.errors).toHaveLength(1)
    expect(outcome.errors[0]).toMatch(/session lookup/)
  })

  it("a missing chunk: the requests go without a session, and onError says why", async () => {
    const outcome = await firstRequests("missing", 300)
    expect(outcome.first).toBeNull()
    expect(outcome.second).toBeNull()
    expect(outcome.errors.length).toBeGreaterThan(0)
    expect(outcome.errors[0]).toMatch(/dynamically imported module|Detect-/)
  })
})
