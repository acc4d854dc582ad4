/**
 * The examples of the README and docs/ run as written: each program (a ```` ```ts ```` block)
 * against the demo server (`examples/server.ts`), each server (```` ```ts server ````) on a port of
 * its own, called over loopback. They run as a reader's file would: a `.ts` file under this package (ES modules,
 * so top-level `await` works) importing `svc-sdk`, which resolves to `src/` under the
 * `svc-sdk-source` condition, bundled with those sources as the demo is (scripts/bundle-program.mjs;
 * test/package runs its blocks with tsx from the tarball): Effect 4 blocks on Node 24 with the
 * Effect 4 toolchain's effect (scripts/effect4-loader.mjs), `ts v3` blocks on this Node with Effect 3.
 * The one change made to them: the demo server's documented origin, http://127.0.0.1:3000,
 * becomes the test's server, on a free port.
 *
 * Each program must exit 0 with nothing on stderr and print what the documentation says it prints,
 * so an example that 404s fails here. The OpenAPI document the HttpApi example serves must pass
 * `@readme/openapi-parser`'s validation. The guides promise that the examples can be run again and
 * again against one demo server: the catalogue must be the same after all of them as before.
 * The blocks `test/package` runs from the packed tarball (`FROM_TARBALL`) run there, not here.
 */
import { mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DemoServer, startDemoServer } from "../examples/processes.js"
import { ROOT, readmeBlocks, whereOf } from "./readmeBlocks.js"
import {
  entryOf,
  fileOf,
  fromSources,
  PROGRAMS,
  runFile,
  runsFromTarball,
  SERVERS,
  startServerBlock
} from "./readmeExamples.js"

const SCRATCH = join(ROOT, ".tmp/readme-run")
const blocks = readmeBlocks()
const programs = blocks.filter((block) => block.kind === "program")
const servers = blocks.filter((block) => block.kind === "server")

/** The demo catalogue as an administrator sees it: what an example could leave changed. */
const catalogueOf = async (origin: string): Promise<unknown> => {
  const login = await fetch(`${origin}/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "alice@example.com", password: "alice-secret" })
  })
  const { data } = (await login.json()) as { data: { session_id: string } }
  const stats = await fetch(`${origin}/admin/stats`, {
    headers: { "x-session-id": data.session_id }
  })
  const products = await fetch(`${origin}/products?limit=100`)
  return { stats: await stats.json(), products: await products.json() }
}

describe("the examples of the README and docs/, run", () => {
  let demo: DemoServer
  let before: unknown
  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true })
    mkdirSync(SCRATCH, { recursive: true })
    demo = await startDemoServer()
    before = await catalogueOf(demo.url)
  }, 90_000)
  afterAll(async () => {
    expect(await demo.stop()).toBe(0)
  })

  it("has an expectation for every program and server block, and every expectation a block", () => {
    expect(programs.length).toBeGreaterThanOrEqual(PROGRAMS.length)
    expect(servers.length).toBe(SERVERS.length)
    const used = [
      ...programs.map((b) => entryOf(PROGRAMS, b)),
      ...servers.map((b) => entryOf(SERVERS, b))
    ]
    expect(new Set(used).size).toBe(PROGRAMS.length + SERVERS.length)
  })

  for (const block of programs.filter((block) => !runsFromTarball(block))) {
    const firstCall = /createSvc\("[^"]*"|SvcClient\.layer\("[^"]*"|query\("[^"]*"/.exec(block.code)
    it(`runs the program at ${whereOf(block)}, Effect ${block.effect} (${firstCall?.[0] ?? "no request"})`, async () => {
      const { prints } = entryOf(PROGRAMS, block)
      const { code, stdout, stderr } = await runFile(
        fromSources,
        block,
        fileOf(SCRATCH, block, demo.url)
      )
      expect(stderr).toBe("")
      expect(code).toBe(0)
      for (const pattern of prints) expect(stdout).toMatch(pattern)
    }, 60_000)
  }

  for (const block of servers.filter((block) => !runsFromTarball(block))) {
    it(`starts the server at ${whereOf(block)}, Effect ${block.effect}, and calls it`, async () => {
      const { check } = entryOf(SERVERS, block)
      const server = await startServerBlock(fromSources, block, fileOf(SCRATCH, block, demo.url))
      try {
        await check(server.url)
      } finally {
        await server.stop()
      }
    }, 60_000)
  }

  it("leaves the demo server's catalogue as it found it, so each example runs again", async () => {
    expect(before).toMatchObject({ stats: { data: { products: 24 } } })
    expect(await catalogueOf(demo.url)).toEqual(before)
  })
})
