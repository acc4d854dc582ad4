/**
 * A browser app built with Vite from the packed tarball, as a new user would: `vite build` and the
 * dev server work without a word about the optional React Native peer, and the app, loaded in
 * Debian's Chromium, finds the session in localStorage and sends it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import { extname, join } from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hasChromium, launchChromium } from "../browser/chromium.js"
import { exec, freePort, npmInstall, packedScratch, versionOf } from "../support/tarball.js"

let scratch = ""
let api: Http.Server
let apiOrigin = ""
const sessions: Array<string | undefined> = []

beforeAll(async () => {
  const packed = await packedScratch("vite-app-", {
    name: "vite-app",
    private: true,
    type: "module"
  })
  scratch = packed.dir
  await npmInstall(scratch, [packed.tarball, `vite@${versionOf("vite")}`])
  writeFileSync(
    join(scratch, "index.html"),
    '<!doctype html><html><body><script type="module" src="/main.js"></script></body></html>'
  )
  writeFileSync(
    join(scratch, "main.js"),
    `import { createSvc } from "svc-sdk"
     const svc = createSvc(location.origin + "/api")
     const response = await svc.get("/whoami")
     document.body.dataset.result = JSON.stringify(response.success ? response.data : response.error)`
  )
  api = Http.createServer((request, response) => {
    sessions.push(request.headers["x-session-id"] as string | undefined)
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ session: request.headers["x-session-id"] ?? null }))
  })
  await new Promise<void>((done) => api.listen(0, "127.0.0.1", done))
  apiOrigin = `http://127.0.0.1:${(api.address() as Net.AddressInfo).port}`
  writeFileSync(
    join(scratch, "vite.config.js"),
    `export default { server: { proxy: { "/api": ${JSON.stringify(apiOrigin)} } } }`
  )
}, 180_000)

afterAll(async () => {
  api?.closeAllConnections()
  if (api) await new Promise<void>((done) => api.close(() => done()))
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

/** Loads `origin`, stores a session id in localStorage, reloads: what did the app get back? */
const sessionRoundTrip = async (browser: Browser, origin: string) => {
  const page = await (await browser.newContext()).newPage()
  const errors: Array<string> = []
  page.on("pageerror", (error) => errors.push(error.message))
  await page.goto(origin)
  await page.waitForFunction(() => document.body.dataset.result !== undefined)
  const before = await page.evaluate(() => document.body.dataset.result)
  await page.evaluate(() => localStorage.setItem("svc_session_id", "vite-session-7"))
  await page.reload()
  await page.waitForFunction(() => document.body.dataset.result !== undefined)
  const after = await page.evaluate(() => document.body.dataset.result)
  await page.context().close()
  return { before, after, errors }
}

const VITE = () => join(scratch, "node_modules", "vite", "bin", "vite.js")

describe("a Vite app from the packed tarball", () => {
  let browser: Browser | undefined
  beforeAll(async () => {
    if (hasChromium) browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it("vite build: no error, no warning about svc-sdk or the React Native peer", async () => {
    const output = await exec(process.execPath, [VITE(), "build"], { cwd: scratch })
    expect(output).toMatch(/built in/)
    expect(output).not.toMatch(/async-storage/i)
    expect(output).not.toMatch(/\(!\)|warning/i)
    expect(existsSync(join(scratch, "dist", "index.html"))).toBe(true)
  }, 120_000)

  it.skipIf(!hasChromium)(
    "the built app finds the session in localStorage and sends it",
    async () => {
      const dist = join(scratch, "dist")
      const site = Http.createServer((request, response) => {
        if (request.url?.startsWith("/api/")) {
          const proxied = Http.request(
            `${apiOrigin}${request.url}`,
            {
              headers: request.headers
            },
            (answer) => {
              response.writeHead(answer.statusCode ?? 502, answer.headers)
              answer.pipe(response)
            }
          )
          return request.pipe(proxied)
        }
        const path = join(dist, request.url === "/" ? "index.html" : (request.url ?? ""))
        if (!path.startsWith(dist) || !existsSync(path)) {
          response.writeHead(404)
          return response.end()
        }
        const type = extname(path) === ".js" ? "text/javascript" : "text/html"
        response.writeHead(200, { "content-type": type })
        response.end(readFileSync(path))
      })
      await new Promise<void>((done) => site.listen(0, "127.0.0.1", done))
      try {
        const origin = `http://127.0.0.1:${(site.address() as Net.AddressInfo).port}`
        const result = await sessionRoundTrip(browser!, origin)
        expect(result.errors).toEqual([])
        expect(result.before).toBe('{"session":null}')
        expect(result.after).toBe('{"session":"vite-session-7"}')
      } finally {
        // Chromium, still running, may hold a socket it opened ahead of a request: that would
        // hold the close until the server's header timeout
        site.closeAllConnections()
        await new Promise<void>((done) => site.close(() => done()))
      }
    },
    60_000
  )

  it("the Vite dev server serves the app, which works in Chromium", async () => {
    const port = await freePort()
    let dev: ChildProcess | undefined
    try {
      dev = spawn(
        process.execPath,
        [VITE(), "--port", String(port), "--strictPort", "--host", "127.0.0.1"],
        { cwd: scratch, stdio: ["ignore", "pipe", "pipe"] }
      )
      let log = ""
      dev.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()))
      dev.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()))
      const origin = `http://127.0.0.1:${port}`
      for (let attempt = 0; attempt < 100 && !log.includes("ready in"); attempt++) {
        await new Promise((done) => setTimeout(done, 100))
      }
      const page = await fetch(origin)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain("/main.js")
      if (browser !== undefined) {
        const result = await sessionRoundTrip(browser, origin)
        expect(result.errors).toEqual([])
        expect(result.after).toBe('{"session":"vite-session-7"}')
      }
      expect(log).not.toMatch(/async-storage|Failed to resolve/i)
    } finally {
      dev?.kill()
    }
  }, 90_000)
})
