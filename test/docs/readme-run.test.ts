/**
 * The README's examples run as written: each program (a ```` ```ts ```` block) against the demo
 * server (`examples/server.ts`), each server (```` ```ts server ````) on a port of its own, called
 * over loopback. They run as a reader's file would: a `.ts` file under this package (ES modules,
 * so top-level `await` works) importing `svc-sdk`, which resolves to `src/` under the
 * `svc-sdk-source` condition, run with tsx. The one change made to them: the demo server's
 * documented origin, http://127.0.0.1:3000, becomes the test's server, on a free port.
 *
 * Each program must exit 0 with nothing on stderr and print what the README says it prints, so an
 * example that 404s fails here. The OpenAPI document the HttpApi example serves must pass
 * `@readme/openapi-parser`'s validation.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { validate } from "@readme/openapi-parser"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DemoServer, startDemoServer } from "../examples/processes.js"
import { type Block, ROOT, readmeBlocks } from "./readmeBlocks.js"

const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/cli.mjs", import.meta.url))
const DOCUMENTED_ORIGIN = "http://127.0.0.1:3000"
const SCRATCH = join(ROOT, ".tmp/readme-run")

/** What each program prints, found by a piece of its code. Every program needs one. */
const PROGRAMS: ReadonlyArray<{ readonly code: string; readonly prints: ReadonlyArray<RegExp> }> = [
  {
    code: 'await svc.get<Array<Product>>("/products"',
    prints: [
      /^\[ 'Standing Desk', 'Ergonomic Chair', 'Laptop Stand' \] 6$/m,
      /^Bob 200 Deleted USB-C Hub$/m,
      /^\[ 'Sticky Notes: 4', 'Notebook A5: 6', 'Gel Pens \(10 pack\): 9' \]$/m
    ]
  },
  { code: "const refreshSession", prints: [/^200 Carol$/m] },
  { code: "HttpResponse.arrayBuffer", prints: [/^4 image\/png$/m] },
  {
    code: 'await api.post("/files", form)',
    prints: [
      /^200 \[\n\s+\{ field: 'title', value: 'Q3 report' \},\n\s+\{\n\s+field: 'file',\n\s+name: 'report\.pdf',\n\s+type: 'application\/pdf',\n\s+size: 12\n\s+\}\n\]$/m,
      /^ABORTED$/m
    ]
  },
  {
    code: 'import { z } from "zod"',
    prints: [
      /^\[ 'Desk Lamp', 'Standing Desk', 'Desk Mat' \]$/m,
      /^200 DECODE_ERROR .*0\.price: /m,
      /^espresso machine, coffee grinder, travel mug, water bottle$/m
    ]
  },
  {
    code: "yield* SvcClient",
    prints: [
      /\[ 'Laptop Stand', 'Desk Lamp' \],\n\s+\{ attempts: 3 \},\n\s+'Request timed out after 500 ms: GET http:\/\/127\.0\.0\.1:\d+\/slow'/
    ]
  },
  {
    code: 'query("/products")',
    prints: [/^\] desk lamp 2 \[$/m, /^\] \{ include: 'reviews' \} 200$/m]
  },
  {
    code: "totalTimeout: 5_000 })",
    prints: [/^TIMEOUT Request timed out after 300 ms: GET http:\/\/127\.0\.0\.1:\d+\/slow$/m]
  },
  { code: "memoryStorage()", prints: [/^true null$/m] },
  // Layers only: running it shows that every import and constructor works outside a type check.
  { code: "SessionValidator.cached(", prints: [/^$/] }
]

interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const fileOf = (block: Block, url: string) => {
  const file = join(SCRATCH, `readme-line-${block.line}.ts`)
  writeFileSync(file, block.code.replaceAll(DOCUMENTED_ORIGIN, url))
  return file
}

const runFile = (file: string): Promise<Finished> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [TSX, "--conditions=svc-sdk-source", file],
      { cwd: ROOT, timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === "number" ? error.code : -1) : 0,
          stdout,
          stderr
        })
    )
  })

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject()
      )
    })
  })

interface Started {
  readonly url: string
  readonly stop: () => Promise<number | null>
}

/** Starts a server block with `PORT`, and resolves once it answers HTTP. */
const startServerBlock = async (file: string): Promise<Started> => {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [TSX, "--conditions=svc-sdk-source", file], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, PORT: String(port) }
  })
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
  const url = `http://127.0.0.1:${port}`
  for (const started = Date.now(); Date.now() - started < 30_000; ) {
    if (child.exitCode !== null) break
    const answered = await fetch(url).then(
      () => true,
      () => false
    )
    if (answered) {
      return {
        url,
        stop: () => {
          child.kill("SIGINT")
          return exited
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  child.kill("SIGKILL")
  throw new Error(`${file} did not answer on ${url}:\n${output}`)
}

const call = async (url: string, init: { method?: string; session?: string } = {}) => {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: init.session === undefined ? {} : { "x-session-id": init.session }
  })
  return { status: response.status, body: await response.json() }
}

/** How each server block is called, found by a piece of its code. Every server needs one. */
const SERVERS: ReadonlyArray<{
  readonly code: string
  readonly check: (url: string) => Promise<void>
}> = [
  {
    code: "HttpRouter.get(",
    check: async (url) => {
      expect(await call(`${url}/me`, { session: "s-1" })).toEqual({
        status: 200,
        body: { id: "u1", email: "ada@example.com" }
      })
      expect(await call(`${url}/me`)).toEqual({
        status: 401,
        body: { error: "Session ID required" }
      })
      expect(await call(`${url}/feed`)).toEqual({ status: 200, body: { personalised: false } })
      expect(await call(`${url}/admin`, { session: "s-1" })).toEqual({
        status: 200,
        body: { ok: true }
      })
      expect(await call(`${url}/posts/1`, { method: "DELETE", session: "s-2" })).toEqual({
        status: 401,
        body: { error: "Invalid session" }
      })
    }
  },
  {
    code: "HttpApiBuilder.serve()",
    check: async (url) => {
      expect(await call(`${url}/me`, { session: "s-1" })).toEqual({
        status: 200,
        body: { user_id: "u1" }
      })
      expect(await call(`${url}/posts/7`, { method: "DELETE", session: "s-1" })).toEqual({
        status: 200,
        body: { removed: 7 }
      })
      expect(await call(`${url}/posts/7`, { method: "DELETE" })).toEqual({
        status: 401,
        body: { error: "Session ID required" }
      })
      const document = await call(`${url}/openapi.json`)
      expect(document.status).toBe(200)
      expect(Object.keys(document.body.paths)).toEqual(["/me", "/posts/{id}"])
      const result = await validate(document.body)
      expect(result.valid ? [] : result.errors).toEqual([])
    }
  }
]

const blocks = readmeBlocks()
const programs = blocks.filter((block) => block.kind === "program")
const servers = blocks.filter((block) => block.kind === "server")

/** The one entry whose `code` the block contains. */
const entryOf = <E extends { readonly code: string }>(
  entries: ReadonlyArray<E>,
  block: Block
): E => {
  const found = entries.filter((entry) => block.code.includes(entry.code))
  if (found.length !== 1) {
    throw new Error(
      `README.md:${block.line}: ${found.length} entries of readme-run.test.ts match this block; give it exactly one`
    )
  }
  return found[0]!
}

describe("the README's examples, run", () => {
  let demo: DemoServer
  beforeAll(async () => {
    rmSync(SCRATCH, { recursive: true, force: true })
    mkdirSync(SCRATCH, { recursive: true })
    demo = await startDemoServer()
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

  for (const block of programs) {
    const firstCall = /createSvc\("[^"]*"|SvcClient\.layer\("[^"]*"|query\("[^"]*"/.exec(block.code)
    it(`runs the program at README.md:${block.line} (${firstCall?.[0] ?? "no request"})`, async () => {
      const { prints } = entryOf(PROGRAMS, block)
      const { code, stdout, stderr } = await runFile(fileOf(block, demo.url))
      expect(stderr).toBe("")
      expect(code).toBe(0)
      for (const pattern of prints) expect(stdout).toMatch(pattern)
    }, 40_000)
  }

  for (const block of servers) {
    it(`starts the server at README.md:${block.line} and calls it`, async () => {
      const { check } = entryOf(SERVERS, block)
      const server = await startServerBlock(fileOf(block, demo.url))
      try {
        await check(server.url)
      } finally {
        await server.stop()
      }
    }, 60_000)
  }
})
