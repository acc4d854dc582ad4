/**
 * What the examples of the README and docs/ print and answer, and how to run them: from the sources
 * (`readme-run.test.ts`) or from the packed tarball installed in an app (`test/package`).
 * A program block prints what `PROGRAMS` says; a server block answers as `SERVERS` checks.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { validate } from "@readme/openapi-parser"
import { expect } from "vitest"
import { bundleProgram } from "../../scripts/bundle-program.mjs"
import { nodeBinary, OTHER_VERSIONS } from "../../scripts/node-versions.mjs"
import { type Block, fileNameOf, ROOT, whereOf } from "./readmeBlocks.js"

export const DOCUMENTED_ORIGIN = "http://127.0.0.1:3000"

/** What each program prints, found by a piece of its code. Every program needs one. */
export const PROGRAMS: ReadonlyArray<{
  readonly code: string
  readonly prints: ReadonlyArray<RegExp>
}> = [
  // the README's first request
  {
    code: 'svc.get<Array<{ name: string; price: number }>>("/products"',
    prints: [/^\[ 'Standing Desk', 'Ergonomic Chair', 'Laptop Stand' \]$/m]
  },
  {
    code: 'await svc.get<Array<Product>>("/products"',
    prints: [
      /^\[ 'Standing Desk', 'Ergonomic Chair', 'Laptop Stand' \] 6$/m,
      /^Bob 201 Deleted Cable Tray$/m,
      /^\[ 'Sticky Notes: 4', 'Notebook A5: 6', 'Gel Pens \(10 pack\): 9' \]$/m
    ]
  },
  { code: "refreshSession: async (_failed, client)", prints: [/^200 Carol 200$/m] },
  { code: "HttpResponse.arrayBuffer", prints: [/^4 image\/png$/m] },
  // docs/client.md: a download to a file, with its progress
  { code: 'join(tmpdir(), "products.json")', prints: [/^100 %$/m, /^saved \d+ bytes$/m] },
  {
    code: 'await api.post("/files", form)',
    prints: [
      /^200 \[\n\s+\{ field: 'title', value: 'Q3 report' \},\n\s+\{\n\s+field: 'file',\n\s+name: 'report\.pdf',\n\s+type: 'application\/pdf',\n\s+size: 12\n\s+\}\n\]$/m,
      /^ABORTED$/m
    ]
  },
  {
    code: "const Product = z.object({ id: z.number(), name: z.string(), price: z.number() })",
    prints: [
      /^\[ 'Desk Lamp', 'Standing Desk', 'Desk Mat' \]$/m,
      /^200 DECODE_ERROR .*0\.price: /m,
      /^espresso machine, coffee grinder, travel mug, water bottle$/m
    ]
  },
  {
    code: "schema: Schema.Array(Product)",
    prints: [
      /\[ 'Laptop Stand', 'Desk Lamp' \],\n\s+\{ attempts: 3 \},\n\s+'Request timed out after 500 ms: GET http:\/\/127\.0\.0\.1:\d+\/slow'/
    ]
  },
  { code: 'key: "readme-v3"', prints: [/^\{ attempts: 3 \}$/m] },
  {
    code: 'body: { prompt: "A haiku about HTTP" }',
    prints: [/^Request sent in hope;\nbytes arrive one by one, then\ntwo hundred, at last\.$/m]
  },
  {
    code: "params: { count: 5, drop: 2, interval: 100, retry: 500 }",
    prints: [
      /^1 update \{"seq":1,"text":"Update 1 of 5"\}\n2 update .*\n3 update .*\n4 update .*\n5 update \{"seq":5,"text":"Update 5 of 5"\}\ntrue resume later from 5$/m
    ]
  },
  { code: 'api.stream("/download"', prints: [/^1000000 of 1000000$/m] },
  {
    code: "NodeSdk.layer(",
    prints: [
      /^ {2}name: 'GET',$/m,
      /'http\.response\.status_code': 200/,
      /^ {2}name: 'list products',$/m
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
  { code: "SessionValidator.cached(", prints: [/^$/] },
  {
    code: "LoginThrottle.layerMemory({ maxAttempts: 5",
    prints: [
      /^wrong password, wrong password, wrong password, wrong password, wrong password, locked: retry in 900 s$/m
    ]
  }
]

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Writes the block into `dir`, the demo server's documented origin replaced by `url`. */
export const fileOf = (dir: string, block: Block, url: string) => {
  const file = join(dir, fileNameOf(block))
  writeFileSync(file, block.code.replaceAll(DOCUMENTED_ORIGIN, url))
  return file
}

/** How a block's file runs: the Node binary, its arguments, and the folder it runs in. */
export interface Runner {
  readonly command: (
    block: Block,
    file: string
  ) => Promise<readonly [string, ReadonlyArray<string>]>
  readonly cwd: string
}

/** Node 24, where Effect 4 runs. */
export const node24 = (): string =>
  nodeBinary(OTHER_VERSIONS.find((version: string) => version.startsWith("24."))!)

const LOADER = fileURLToPath(new URL("../../scripts/effect4-loader.mjs", import.meta.url))

/**
 * From the sources, as the demo runs (scripts/bundle-program.mjs): the block bundled with svc-sdk's
 * sources beside its file, then run on Node 24 with the Effect 4 toolchain's effect (Effect 4
 * blocks), or on this Node (Effect 3).
 */
export const fromSources: Runner = {
  command: async (block, file) => {
    const bundled = file.replace(/\.ts$/, ".mjs")
    await bundleProgram(file, bundled)
    return block.effect === 4
      ? [node24(), ["--import", LOADER, bundled]]
      : [process.execPath, [bundled]]
  },
  cwd: ROOT
}

/**
 * How long a program may run: an example takes seconds alone, but several times that on a machine
 * the rest of the suite keeps busy. Under the tests' own limit, so a program still running is named.
 */
const RUN_LIMIT_MILLIS = 50_000

/**
 * Runs a program block's file to its end. One still running after {@link RUN_LIMIT_MILLIS} is
 * stopped, and its stderr says so, with what it printed.
 */
export const runFile = async (runner: Runner, block: Block, file: string): Promise<Finished> => {
  const [node, args] = await runner.command(block, file)
  return new Promise((resolve) => {
    execFile(node, args, { cwd: runner.cwd, timeout: RUN_LIMIT_MILLIS }, (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === "number" ? error.code : -1) : 0,
        stdout,
        stderr: error?.killed
          ? `${stderr}still running after ${RUN_LIMIT_MILLIS / 1000} s: stopped; it printed:\n${stdout}`
          : stderr
      })
    )
  })
}

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

export interface Started {
  readonly url: string
  readonly stop: () => Promise<number | null>
}

/** Starts a server block with `PORT`, and resolves once it answers HTTP. */
export const startServerBlock = async (
  runner: Runner,
  block: Block,
  file: string
): Promise<Started> => {
  const port = await freePort()
  const [node, args] = await runner.command(block, file)
  const child: ChildProcess = spawn(node, args, {
    cwd: runner.cwd,
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

/** The README's first guarded route. */
const checkFirstRoute = async (url: string) => {
  expect(await call(`${url}/hello`, { session: "s-1" })).toEqual({
    status: 200,
    body: { hello: "u1" }
  })
  expect(await call(`${url}/hello`)).toEqual({
    status: 401,
    body: { error: "Session ID required" }
  })
  expect(await call(`${url}/hello`, { session: "s-2" })).toEqual({
    status: 401,
    body: { error: "Invalid session" }
  })
}

/** The router example's routes, on either line. */
const checkRouter = async (url: string) => {
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

/** The HttpApi example's endpoints and OpenAPI document, on either line. */
const checkHttpApi = async (url: string) => {
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

/** How each server block is called, found by a piece of its code. Every server needs one. */
export const SERVERS: ReadonlyArray<{
  readonly code: string
  readonly check: (url: string) => Promise<void>
}> = [
  { code: 'HttpRouter.add("GET", "/hello"', check: checkFirstRoute },
  { code: 'HttpRouter.add("GET", "/me"', check: checkRouter },
  { code: 'HttpRouter.get("/me"', check: checkRouter },
  { code: "HttpApiBuilder.layer(Api", check: checkHttpApi },
  { code: "HttpApiBuilder.serve()", check: checkHttpApi }
]

/**
 * The blocks `test/package` runs from the packed tarball, by a piece of their code, on each line:
 * the traces, Effect, router and HttpApi examples. The sources run leaves them to it: each block
 * runs once, the way a user gets it. (The Promise example, run there converted for both lines, runs
 * from the sources too: it is the one that changes the demo catalogue the sources run checks.)
 */
export const FROM_TARBALL = {
  4: [
    "NodeSdk.layer(",
    "yield* SvcClient",
    'HttpRouter.add("GET", "/me"',
    "HttpApiBuilder.layer(Api"
  ],
  3: ['key: "readme-v3"', 'HttpRouter.get("/me"', "HttpApiBuilder.serve()"]
} as const

/** Whether `test/package` runs `block` from the packed tarball. */
export const runsFromTarball = (block: Block): boolean =>
  FROM_TARBALL[block.effect].some((code) => block.code.includes(code))

/** The one entry whose `code` the block contains. */
export const entryOf = <E extends { readonly code: string }>(
  entries: ReadonlyArray<E>,
  block: Block
): E => {
  const found = entries.filter((entry) => block.code.includes(entry.code))
  if (found.length !== 1) {
    throw new Error(
      `${whereOf(block)}: ${found.length} entries of readme-run.test.ts match this block; give it exactly one`
    )
  }
  return found[0]!
}
