/**
 * The code svc-sdk loads on demand, in Debian's Chromium, on a page built as an app's production
 * build splits it, served with the chunks of the stream programs, Standard Schema validation, the
 * redirect rules and the reason phrases missing (a deploy that replaced them, a dropped
 * connection): each face answers a typed failure naming what could not be loaded — the facade
 * `NETWORK_ERROR` or `DECODE_ERROR`, the Effect API `NetworkError` or `DecodeError`, never a
 * defect — and `onError` hears of each; a failure whose reason phrase could not come is the
 * server's failure still, named by its status alone.
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
  console.warn(`Skipping the lazy chunks suite: ${CHROMIUM} is absent.`)
}

/** The chunks the page server does not serve. */
const MISSING = /^\/(streams|standardValidate|redirect|reasonPhrases)-/

interface Failures {
  readonly facade: Record<"stream" | "sse" | "standard" | "redirect" | "reason", string>
  readonly effectApi: Record<
    "stream" | "sse" | "standard" | "redirect" | "reason",
    Record<string, unknown>
  >
  readonly reported: ReadonlyArray<string>
}

describe.skipIf(!hasChromium).each(LINES)(
  "code loaded on demand that cannot come, Effect %s",
  (line) => {
    let browser: Browser
    let api: ApiServer
    let files: ReadonlyMap<string, string>
    const missed: Array<string> = []
    let site: { url: string; close: () => void }

    beforeAll(async () => {
      files = await bundleSplit("./chunks-page.ts", line)
      site = await serveSplit(files, "chunks-page", (path, _, response) => {
        if (!MISSING.test(path)) return false
        missed.push(path)
        response.writeHead(404).end()
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

    it("each face answers a typed failure naming the module, and onError hears of it", async () => {
      expect([...files.keys()].filter((path) => MISSING.test(path))).toHaveLength(4)
      const context = await browser.newContext()
      try {
        const page = await context.newPage()
        await page.goto(site.url)
        await page.waitForFunction(() => "lazyFailures" in window)
        const failures = await page.evaluate(
          (origin) =>
            (
              window as unknown as { lazyFailures: (api: string) => Promise<Failures> }
            ).lazyFailures(origin),
          api.url
        )
        expect(missed.some((path) => /^\/streams-/.test(path))).toBe(true)
        expect(missed.some((path) => /^\/standardValidate-/.test(path))).toBe(true)
        expect(missed.some((path) => /^\/redirect-/.test(path))).toBe(true)
        expect(missed.some((path) => /^\/reasonPhrases-/.test(path))).toBe(true)
        const streams = /svc-sdk's stream programs could not be loaded \(.+\)/
        const standard = /svc-sdk's Standard Schema validation could not be loaded \(.+\)/
        const redirects = /svc-sdk's redirects could not be loaded \(.+\)/
        expect(failures.facade.stream).toMatch(/^NETWORK_ERROR: /)
        expect(failures.facade.stream).toMatch(streams)
        expect(failures.facade.sse).toMatch(/^NETWORK_ERROR: /)
        expect(failures.facade.sse).toMatch(streams)
        // no schema's verdict: the message says the decoding could not be done
        expect(failures.facade.standard).toMatch(/^DECODE_ERROR: Response could not be decoded: /)
        expect(failures.facade.standard).toMatch(standard)
        for (const kind of ["stream", "sse"] as const) {
          expect(failures.effectApi[kind]).toEqual({ failure: expect.stringMatching(streams) })
          expect(failures.effectApi[kind].failure).toMatch(/^NetworkError NETWORK_ERROR: /)
        }
        expect(failures.effectApi.standard).toEqual({ failure: expect.stringMatching(standard) })
        expect(failures.effectApi.standard.failure).toMatch(
          /^DecodeError DECODE_ERROR: Response could not be decoded: /
        )
        // a redirect the browser hides: its rules could not come, so it is not followed
        expect(failures.facade.redirect).toMatch(/^NETWORK_ERROR: /)
        expect(failures.facade.redirect).toMatch(redirects)
        expect(failures.effectApi.redirect).toEqual({ failure: expect.stringMatching(redirects) })
        expect(failures.effectApi.redirect.failure).toMatch(/^NetworkError NETWORK_ERROR: /)
        // a failure whose phrase could not come is still the server's failure, named by its status
        expect(failures.facade.reason).toBe("HTTP_ERROR: HTTP 404")
        expect(failures.effectApi.reason).toEqual({ failure: "HttpError HTTP_ERROR: HTTP 404" })
        // each call's failure, once: two streams, a decode, a redirect and the 404 on each face
        expect(failures.reported.filter((message) => streams.test(message))).toHaveLength(4)
        expect(failures.reported.filter((message) => standard.test(message))).toHaveLength(2)
        expect(failures.reported.filter((message) => redirects.test(message))).toHaveLength(2)
        expect(failures.reported.filter((message) => message === "HTTP 404")).toHaveLength(2)
        expect(failures.reported).toHaveLength(10)
      } finally {
        await context.close()
      }
    })
  }
)
