/**
 * The session, end to end in Debian's Chromium: a page bundling the library is served from one
 * local port and calls an API on another; the API records which `X-Session-Id` each request
 * carried, on each Effect line. The outcomes end up in `test-results/browser-session-effect*.png`.
 */
import { existsSync, mkdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundle, CHROMIUM, hasChromium, LINES, launchChromium } from "./chromium.js"
import type { ClientOutcome, ClientPage, StoragePage } from "./outcomes.js"
import { type ApiServer, type Listening, startApiServer, startPageServer } from "./servers.js"

if (!hasChromium) {
  console.warn(
    `Skipping the browser session suite: ${CHROMIUM} is absent (install it with apt-get install -y chromium).`
  )
}

const NONE = "(none)"
describe.skipIf(!hasChromium).each(LINES)("session in a real browser, Effect %s", (line) => {
  const SCREENSHOT = fileURLToPath(
    new URL(`../../test-results/browser-session-effect${line}.png`, import.meta.url)
  )
  const scripts = new Map<string, string>()
  const summary: Array<readonly [scenario: string, expected: string, seen: string]> = []
  let browser: Browser
  let site: Listening
  let api: ApiServer

  beforeAll(async () => {
    scripts.set("/storage.js", await bundle("./storage-page.ts", line))
    scripts.set("/client.js", await bundle("./client-page.ts", line))
    site = await startPageServer(scripts, "svc-sdk session in Chromium")
    api = await startApiServer()
    browser = await launchChromium()
  })

  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await api?.close()
  })

  /** A fresh browser profile (empty storage and cookies) with the page loaded. */
  const openPage = async (path = "/"): Promise<Page> => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const pageErrors: Array<Error> = []
    page.on("pageerror", (error) => pageErrors.push(error))
    await page.goto(`${site.url}${path}?api=${encodeURIComponent(api.url)}`)
    await page.waitForFunction(() => "clientPage" in window && "storagePage" in window)
    expect(pageErrors).toEqual([])
    return page
  }

  const seed = (page: Page, area: "localStorage" | "sessionStorage", key: string, value: string) =>
    page.evaluate(([area, key, value]) => window[area].setItem(key, value), [
      area,
      key,
      value
    ] as const)

  const seedCookie = (page: Page, value: string) =>
    page.evaluate((value) => {
      // biome-ignore lint/suspicious/noDocumentCookie: an app setting its cookie is the scenario
      document.cookie = `session_id=${value}; Path=/`
    }, value)

  const storageOf = (page: Page) => ({
    detect: (scenario: string, expected: string) =>
      page.evaluate(
        ([scenario, expected]) =>
          (window as unknown as { storagePage: StoragePage }).storagePage.detect(
            scenario,
            expected
          ),
        [scenario, expected] as const
      ),
    save: (id: string) =>
      page.evaluate(
        (id) => (window as unknown as { storagePage: StoragePage }).storagePage.save(id),
        id
      ),
    clear: () =>
      page.evaluate(() => (window as unknown as { storagePage: StoragePage }).storagePage.clear())
  })

  const clientOf = (page: Page) => ({
    request: (scenario: string, expected: string, options: { includeSession?: boolean } = {}) =>
      page.evaluate(
        ([scenario, expected, options]) =>
          (window as unknown as { clientPage: ClientPage }).clientPage.request(
            scenario,
            expected,
            options
          ),
        [scenario, expected, options] as const
      ),
    requestWithNewClient: (
      scenario: string,
      expected: string,
      config: { includeSession?: boolean }
    ) =>
      page.evaluate(
        ([scenario, expected, config]) =>
          (window as unknown as { clientPage: ClientPage }).clientPage.requestWithNewClient(
            scenario,
            expected,
            config
          ),
        [scenario, expected, config] as const
      ),
    setSessionId: (id: string) =>
      page.evaluate(
        (id) => (window as unknown as { clientPage: ClientPage }).clientPage.setSessionId(id),
        id
      ),
    clearSession: () =>
      page.evaluate(() =>
        (window as unknown as { clientPage: ClientPage }).clientPage.clearSession()
      )
  })

  /** What the API server recorded for the last request of `scenario`, checked against `expected`. */
  const expectServerSaw = (scenario: string, outcome: ClientOutcome, expected: string | null) => {
    const hits = api.seen.filter((request) => request.tag.startsWith(`${scenario}#`))
    const last = hits.at(-1)
    summary.push([
      scenario,
      expected ?? NONE,
      last === undefined ? "no request" : (last.sessionHeader ?? NONE)
    ])
    expect(
      last,
      `the API received a request for "${scenario}": ${JSON.stringify(outcome)}`
    ).toBeDefined()
    expect(last?.sessionHeader ?? null).toBe(expected)
    expect(last?.cookieHeader ?? null).toBeNull()
    expect(outcome).toMatchObject({ success: true, session: expected, errors: [] })
  }

  describe("storage detection alone", () => {
    it("finds localStorage, then sessionStorage, then the session_id cookie", async () => {
      const page = await openPage()
      const storage = storageOf(page)
      await expect(storage.detect("detect: nothing stored", NONE)).resolves.toEqual({
        stores: 3,
        id: null
      })
      await seedCookie(page, "cookie-1")
      await expect(storage.detect("detect: cookie", "cookie-1")).resolves.toMatchObject({
        id: "cookie-1"
      })
      await seed(page, "sessionStorage", "sid", "session-1")
      await expect(storage.detect("detect: sessionStorage", "session-1")).resolves.toMatchObject({
        id: "session-1"
      })
      await seed(page, "localStorage", "sid", "local-1")
      await seed(page, "localStorage", "session-id", "local-2")
      await expect(storage.detect("detect: localStorage order", "local-2")).resolves.toMatchObject({
        id: "local-2"
      })
      summary.push(["detect: storages in order (page only)", "local-2", "local-2"])
    })

    it("saves into localStorage across a reload, and clears every storage and the cookie", async () => {
      const page = await openPage()
      await seedCookie(page, "cookie-1")
      await seed(page, "sessionStorage", "sessionId", "session-1")
      await expect(storageOf(page).save("saved-1")).resolves.toBeNull()
      await page.reload()
      await page.waitForFunction(() => "storagePage" in window)
      expect(await page.evaluate(() => localStorage.getItem("svc_session_id"))).toBe("saved-1")
      await expect(
        storageOf(page).detect("save then reload (page only)", "saved-1")
      ).resolves.toMatchObject({ id: "saved-1" })
      await expect(storageOf(page).clear()).resolves.toBeNull()
      await page.reload()
      await page.waitForFunction(() => "storagePage" in window)
      const left = await page.evaluate(() => [
        localStorage.length,
        sessionStorage.length,
        document.cookie
      ])
      expect(left).toEqual([0, 0, ""])
      await expect(storageOf(page).detect("clear then reload (page only)", NONE)).resolves.toEqual({
        stores: 3,
        id: null
      })
      summary.push([
        "save, reload, clear (page only)",
        "saved-1, then (none)",
        "saved-1, then (none)"
      ])
    })

    it("finds no storage, and throws nothing, in a sandboxed page where storage access is denied", async () => {
      const page = await openPage("/sandboxed")
      const denied = await page.evaluate(() => {
        try {
          return String(window.localStorage)
        } catch (error) {
          return (error as Error).name
        }
      })
      expect(denied).toBe("SecurityError")
      await expect(storageOf(page).detect("sandboxed page (page only)", NONE)).resolves.toEqual({
        stores: 0,
        id: null
      })
      await expect(storageOf(page).save("x")).resolves.toBe("no storage")
      summary.push(["sandboxed page: no storage (page only)", NONE, NONE])
    })
  })

  describe("the client", () => {
    // Chromium preflights every header it sends cross-origin; tracing headers (b3, traceparent)
    // would make an API that allows only X-Session-Id refuse every request.
    it("asks a cross-origin API to allow no request header but X-Session-Id", async () => {
      const page = await openPage()
      await seed(page, "localStorage", "svc_session_id", "preflighted")
      const before = api.preflights.length
      const outcome = await clientOf(page).request("preflight headers", "preflighted")
      expectServerSaw("preflight headers", outcome, "preflighted")
      expect(api.preflights.slice(before)).toEqual(["x-session-id"])
    })

    it("sends an id found under the first pinned key in localStorage", async () => {
      const page = await openPage()
      await seed(page, "localStorage", "svc_session_id", "local-first")
      const outcome = await clientOf(page).request("localStorage svc_session_id", "local-first")
      expectServerSaw("localStorage svc_session_id", outcome, "local-first")
    })

    it("sends an id found under a later pinned key", async () => {
      const page = await openPage()
      await seed(page, "localStorage", "sid", "local-sid")
      const outcome = await clientOf(page).request("localStorage sid", "local-sid")
      expectServerSaw("localStorage sid", outcome, "local-sid")
    })

    it("prefers the earlier key when two are stored", async () => {
      const page = await openPage()
      await seed(page, "localStorage", "sid", "later-key")
      await seed(page, "localStorage", "session_id", "earlier-key")
      const outcome = await clientOf(page).request("localStorage key order", "earlier-key")
      expectServerSaw("localStorage key order", outcome, "earlier-key")
    })

    it("sends an id found in sessionStorage", async () => {
      const page = await openPage()
      await seed(page, "sessionStorage", "sessionId", "from-session")
      const outcome = await clientOf(page).request("sessionStorage", "from-session")
      expectServerSaw("sessionStorage", outcome, "from-session")
    })

    it("prefers localStorage over sessionStorage", async () => {
      const page = await openPage()
      await seed(page, "sessionStorage", "svc_session_id", "from-session")
      await seed(page, "localStorage", "sid", "from-local")
      const outcome = await clientOf(page).request("localStorage over sessionStorage", "from-local")
      expectServerSaw("localStorage over sessionStorage", outcome, "from-local")
    })

    it("sends the page's session_id cookie as the header to the API's other port", async () => {
      const page = await openPage()
      await seedCookie(page, "from-cookie")
      const outcome = await clientOf(page).request("session_id cookie", "from-cookie")
      expectServerSaw("session_id cookie", outcome, "from-cookie")
    })

    it("keeps setSessionId across a reload", async () => {
      const page = await openPage()
      await clientOf(page).setSessionId("set-by-app")
      const before = await clientOf(page).request("setSessionId", "set-by-app")
      expectServerSaw("setSessionId", before, "set-by-app")
      await page.reload()
      await page.waitForFunction(() => "clientPage" in window)
      expect(await page.evaluate(() => localStorage.getItem("svc_session_id"))).toBe("set-by-app")
      const after = await clientOf(page).request("setSessionId then reload", "set-by-app")
      expectServerSaw("setSessionId then reload", after, "set-by-app")
    })

    it("sends nothing after clearSession, also after a reload", async () => {
      const page = await openPage()
      await seed(page, "localStorage", "svc_session_id", "to-clear")
      await seed(page, "sessionStorage", "sid", "to-clear-too")
      await seedCookie(page, "cookie-to-clear")
      await clientOf(page).clearSession()
      const outcome = await clientOf(page).request("clearSession", NONE)
      expectServerSaw("clearSession", outcome, null)
      await page.reload()
      await page.waitForFunction(() => "clientPage" in window)
      expect(await page.evaluate(() => document.cookie)).toBe("")
      const after = await clientOf(page).request("clearSession then reload", NONE)
      expectServerSaw("clearSession then reload", after, null)
    })

    it("sends nothing with includeSession: false, globally or per request", async () => {
      const page = await openPage()
      await seed(page, "localStorage", "svc_session_id", "withheld")
      const client = clientOf(page)
      const global = await client.requestWithNewClient("includeSession false (client)", NONE, {
        includeSession: false
      })
      expectServerSaw("includeSession false (client)", global, null)
      const perRequest = await client.request("includeSession false (request)", NONE, {
        includeSession: false
      })
      expectServerSaw("includeSession false (request)", perRequest, null)
      const control = await client.request("includeSession default", "withheld")
      expectServerSaw("includeSession default", control, "withheld")
    })
  })

  it("saves a screenshot of the outcomes", async () => {
    const page = await openPage()
    await page.evaluate((rows) => {
      const { show } = (window as unknown as { storagePage: StoragePage }).storagePage
      for (const [scenario, expected, seen] of rows) show(scenario, expected, seen)
    }, summary)
    expect(await page.locator("#outcomes tr").count()).toBe(summary.length)
    expect(await page.locator("#outcomes tr.fail").count()).toBe(0)
    mkdirSync(fileURLToPath(new URL("../../test-results/", import.meta.url)), { recursive: true })
    await page.screenshot({ path: SCREENSHOT, fullPage: true })
    expect(existsSync(SCREENSHOT)).toBe(true)
  })
})
