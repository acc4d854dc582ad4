/**
 * `stream`, `sse` and progress over the fetch transport in Debian's Chromium, against a node:http
 * server that also serves the page (no CORS): a download read in the page with
 * `onDownloadProgress`, a whole body and an upload with their progress, and an `EventStream`
 * consumed in the page across a reconnect that resumes with `Last-Event-ID`.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Progress, SseEvent } from "../../src/v3/index.js"
import { bundle, CHROMIUM, hasChromium, LINES, launchChromium } from "./chromium.js"

if (!hasChromium) console.warn(`Skipping the browser streams suite: ${CHROMIUM} is absent.`)

const DOWNLOAD = Buffer.alloc(512 * 1024, "0123456789abcdef")

describe.skipIf(!hasChromium).each(LINES)(
  "stream, sse and progress in Chromium, Effect %s",
  (line) => {
    let browser: Browser
    let page: Page
    let server: Server
    let origin = ""
    let script = ""
    /** Sends the rest of the download the page is reading. */
    let sendRest: (() => void) | undefined
    /** The `Last-Event-ID` of each connection to `/events`. */
    const lastEventIds: Array<string | undefined> = []
    /** Drops the first connection to `/events`. */
    let drop: (() => void) | undefined
    /** The bytes each upload brought. */
    const uploads: Array<number> = []

    beforeAll(async () => {
      script = await bundle("./streams-page.ts", line)
      server = createServer((request, response) => {
        const path = new URL(request.url ?? "/", "http://page").pathname
        if (path === "/page") {
          response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
          return response.end(
            '<!doctype html><meta charset="utf-8"><script src="/page.js"></script>'
          )
        }
        if (path === "/page.js") {
          response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" })
          return response.end(script)
        }
        if (path === "/download") {
          response.writeHead(200, {
            "content-type": "application/octet-stream",
            "content-length": DOWNLOAD.byteLength
          })
          // the first part alone; the rest once the page has read it (`/download/rest`), so
          // that the page reads the body in more than one piece however loaded the machine is
          const part = DOWNLOAD.byteLength / 8
          let at = part
          const next = () => {
            if (at >= DOWNLOAD.byteLength) return response.end()
            response.write(DOWNLOAD.subarray(at, at + part))
            at += part
            setTimeout(next, 10)
          }
          response.write(DOWNLOAD.subarray(0, part))
          sendRest = next
          return
        }
        if (path === "/download/rest") {
          sendRest?.()
          sendRest = undefined
          response.writeHead(204)
          return response.end()
        }
        if (path === "/upload") {
          let bytes = 0
          request.on("data", (chunk: Buffer) => {
            bytes += chunk.byteLength
          })
          request.on("end", () => {
            uploads.push(bytes)
            response.writeHead(200, {
              "content-type": "application/octet-stream",
              "content-length": 4096
            })
            response.end(Buffer.alloc(4096, 2))
          })
          return
        }
        if (path === "/events/seen") {
          if (new URL(request.url ?? "/", "http://page").searchParams.get("id") === "2") drop?.()
          response.writeHead(204)
          return response.end()
        }
        if (path === "/events") {
          const lastEventId = request.headers["last-event-id"]
          lastEventIds.push(typeof lastEventId === "string" ? lastEventId : undefined)
          response.writeHead(200, { "content-type": "text/event-stream" })
          if (lastEventIds.length === 1) {
            // the first connection drops after two events, once the page has them: a browser
            // that sees the connection fail drops the bytes the page has not read yet
            response.write("retry: 20\nid: 1\ndata: one\n\nid: 2\ndata: two\n\n")
            drop = () => response.socket?.destroy()
          } else {
            response.write(`id: 3\ndata: three since ${lastEventId}\n\n`)
          }
          return
        }
        response.writeHead(404).end()
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      browser = await launchChromium()
      page = await (await browser.newContext()).newPage()
      await page.goto(`${origin}/page`)
      await page.waitForFunction(() => "streamsPage" in window)
    })

    afterAll(async () => {
      await browser?.close()
      if (server === undefined) return
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    })

    interface StreamsPage {
      readonly download: (
        endpoint: string,
        rest: string
      ) => Promise<{
        status: number
        bytes: number
        calls: Array<Progress>
        ahead: boolean
      }>
      readonly whole: (
        endpoint: string,
        size: number
      ) => Promise<{
        status: number
        bytes: number
        downloads: Array<Progress>
        uploads: Array<Progress>
      }>
      readonly events: (
        endpoint: string,
        count: number,
        told: string
      ) => Promise<{
        events: Array<SseEvent<string>>
        closed: { success: boolean }
        lastEventId: string
        calls: Array<Progress>
        after: number
      }>
    }
    const inPage = <K extends keyof StreamsPage>(
      name: K,
      ...args: Parameters<StreamsPage[K]>
    ): ReturnType<StreamsPage[K]> =>
      page.evaluate(
        ([name, args]) =>
          (
            (
              window as unknown as {
                streamsPage: Record<string, (...a: Array<unknown>) => unknown>
              }
            ).streamsPage[name] as (...a: Array<unknown>) => unknown
          )(...args),
        [name, args] as const
      ) as ReturnType<StreamsPage[K]>

    it("a stream() download read in the page: progress follows the reads and ends at 1", async () => {
      const read = await inPage("download", "/download", "/download/rest")
      expect(read.status).toBe(200)
      expect(read.bytes).toBe(DOWNLOAD.byteLength)
      expect(read.ahead).toBe(false)
      expect(read.calls.length).toBeGreaterThan(1)
      for (let i = 1; i < read.calls.length; i++) {
        expect(read.calls[i]!.loaded).toBeGreaterThan(read.calls[i - 1]!.loaded)
      }
      expect(read.calls.every((call) => call.total === DOWNLOAD.byteLength)).toBe(true)
      expect(read.calls.at(-1)).toEqual({
        loaded: DOWNLOAD.byteLength,
        total: DOWNLOAD.byteLength,
        progress: 1
      })
    })

    it("a whole body and an upload: the upload reported once sent, the download to its length", async () => {
      const size = 300_000
      const result = await inPage("whole", "/upload", size)
      expect(result).toMatchObject({ status: 200, bytes: 4096 })
      expect(uploads.at(-1)).toBe(size)
      // fetch in a browser streams no request body over HTTP/1.1: one call, once it was sent
      expect(result.uploads).toEqual([{ loaded: size, total: size, progress: 1 }])
      expect(result.downloads.at(-1)).toEqual({ loaded: 4096, total: 4096, progress: 1 })
    })

    it("an EventStream consumed in the page resumes after a dropped connection with Last-Event-ID", async () => {
      lastEventIds.length = 0
      const read = await inPage("events", "/events", 3, "/events/seen")
      expect(read.events).toEqual([
        { event: "message", data: "one", id: "1", retry: 20 },
        { event: "message", data: "two", id: "2" },
        { event: "message", data: "three since 2", id: "3" }
      ])
      expect(lastEventIds).toEqual([undefined, "2"])
      expect(read.lastEventId).toBe("3")
      expect(read.closed).toMatchObject({ success: true })
      // each connection's bytes are counted from its start; none after the stream was closed
      expect(read.calls.length).toBeGreaterThan(1)
      expect(read.calls.every((call) => call.total === undefined)).toBe(true)
      expect(read.after).toBe(0)
    })
  }
)
