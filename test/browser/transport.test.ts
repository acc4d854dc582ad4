/**
 * The fetch transport in Debian's Chromium, against the conformance server (which also serves the
 * page, so no CORS is involved): the pipeline gives the same answers as on Node, and a redirect the
 * browser hides is never followed with the session (SPEC 4.3.11).
 */
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ApiResponse, RequestOptions, SvcConfig } from "../../src/v3/index.js"
import {
  binaryBytes,
  type ConformanceServer,
  startConformanceServer
} from "../Client/conformance/server.js"
import { bundle, CHROMIUM, hasChromium, LINES, launchChromium } from "./chromium.js"

if (!hasChromium) console.warn(`Skipping the browser transport suite: ${CHROMIUM} is absent.`)

describe.skipIf(!hasChromium).each(LINES)("the fetch transport in Chromium, Effect %s", (line) => {
  let browser: Browser
  let page: Page
  let server: ConformanceServer
  let other: ConformanceServer

  beforeAll(async () => {
    const script = await bundle("./transport-page.ts", line)
    server = await startConformanceServer()
    other = await startConformanceServer()
    server.elsewhere = other.origin
    server.pages.set("/page", {
      type: "text/html",
      body: '<!doctype html><meta charset="utf-8"><script src="/page.js"></script>'
    })
    server.pages.set("/page.js", {
      type: "text/javascript",
      body: script
    })
    browser = await launchChromium()
    page = await (await browser.newContext()).newPage()
    await page.goto(`${server.origin}/page`)
    await page.waitForFunction(() => "transportPage" in window)
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    await other?.close()
  })

  const request = (
    method: "get" | "post",
    endpoint: string,
    options: RequestOptions = {},
    config: SvcConfig = {},
    body?: unknown
  ): Promise<ApiResponse> =>
    page.evaluate(
      ([method, endpoint, body, options, config]) =>
        (
          window as unknown as {
            transportPage: {
              request: (...args: ReadonlyArray<unknown>) => Promise<ApiResponse>
            }
          }
        ).transportPage.request(method, endpoint, body, options, config),
      [method, endpoint, body, options, config] as const
    )

  it("a same-origin redirect without a session is followed by the browser", async () => {
    const response = await request("get", "/redirect/302")
    expect(response).toMatchObject({ success: true, status: 200, data: { method: "GET" } })
  })

  it("a redirect of a request with the session is not followed: nothing reaches the other origin", async () => {
    const before = other.seen.length
    const response = await request("get", "/away", {}, { sessionId: "secret-session" })
    expect(response).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
    expect(response.error).toMatch(/redirect whose target this runtime hides/)
    expect(other.seen.length).toBe(before)
    expect(JSON.stringify(other.seen)).not.toContain("secret-session")
  })

  it("a POST that is redirected is not sent twice", async () => {
    const before = server.seen.filter((seen) => seen.path === "/redirect/307").length
    const response = await request("post", "/redirect/307", {}, {}, { a: 1 })
    expect(response.code).toBe("NETWORK_ERROR")
    expect(server.seen.filter((seen) => seen.path === "/redirect/307").length).toBe(before + 1)
  })

  it('redirect: "manual" with a session fails the same clear way', async () => {
    const response = await request(
      "get",
      "/redirect/302",
      { redirect: "manual" },
      { sessionId: "s" }
    )
    expect(response.code).toBe("NETWORK_ERROR")
  })

  it.each(["gzip", "deflate", "br"])("a %s body is decoded", async (coding) => {
    const response = await request("get", `/compressed?coding=${coding}`)
    expect(response.data).toEqual({ compressed: true, text: "é".repeat(100) })
  })

  it("binary, charset, headers, json-seq, responseType", async () => {
    const bytes = await request("get", "/bytes")
    expect(bytes.data).toEqual({ bytes: Array.from(binaryBytes) })
    expect((await request("get", "/latin1")).data).toBe("café")
    const headers = await request("get", "/headers")
    expect(headers.headers).toMatchObject({ etag: '"v1"', "x-total-count": "42" })
    const ndjson = `/typed?type=application%2Fx-ndjson&body=${encodeURIComponent('{"a":1}\n')}`
    expect((await request("get", ndjson)).data).toBe('{"a":1}\n')
    expect((await request("get", "/headers", { responseType: "blob" })).data).toEqual({ blob: 5 })
  })

  it("failures: status and reason, size limit, timeout", async () => {
    expect(await request("get", "/missing")).toMatchObject({
      success: false,
      status: 404,
      error: "No such thing",
      headers: { "x-request-id": "r-1" }
    })
    expect((await request("get", "/teapot")).error).toBe("HTTP 418 I'm a Teapot")
    expect(await request("get", "/large?n=5000", {}, { maxResponseBytes: 1000 })).toMatchObject({
      code: "RESPONSE_TOO_LARGE",
      status: 200
    })
    expect(await request("get", "/bomb", {}, { maxResponseBytes: 65536 })).toMatchObject({
      code: "RESPONSE_TOO_LARGE"
    })
    expect(await request("get", "/hang", { timeout: 50 })).toMatchObject({ code: "TIMEOUT" })
  })

  it("a FormData body goes as multipart, its boundary in the Content-Type", async () => {
    const response = await page.evaluate(() =>
      (
        window as unknown as { transportPage: { postForm: () => Promise<ApiResponse> } }
      ).transportPage.postForm()
    )
    const echo = response.data as { body: string; headers: Record<string, string> }
    const type = echo.headers["content-type"] ?? ""
    expect(type).toMatch(/^multipart\/form-data; ?boundary=[^;\s]+$/)
    const parsed = await new Response(echo.body, { headers: { "content-type": type } }).formData()
    expect(parsed.get("name")).toBe("Ada")
    const file = parsed.get("file") as File
    expect([file.name, file.type, await file.text()]).toEqual(["a.txt", "text/plain", "hello"])
  })

  it("sends the default Accept and a JSON body as a string", async () => {
    const response = await request("post", "/echo", {}, {}, { a: "é" })
    const echo = response.data as { body: string; headers: Record<string, string> }
    expect(echo.body).toBe('{"a":"é"}')
    expect(echo.headers.accept).toBe("application/json, text/plain, */*")
    expect(echo.headers["content-type"]).toBe("application/json")
  })
})
