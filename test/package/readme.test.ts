/**
 * The examples of the README and docs/ from the packed tarball, as a new user runs them: an app
 * that ran `npm install <tarball>` alone (npm picks Effect 4) runs the Promise, Effect, router and HttpApi
 * examples on Node 24; an app with `effect@3 @effect/platform` runs the same through `svc-sdk/v3`
 * on this Node; and the traces example on both. Each app adds only what the examples import: its
 * line's `@effect/platform-node`, `@effect/opentelemetry` and the OpenTelemetry SDK.
 */
import { rmSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Block, documents, documentText, readmeBlocks, whereOf } from "../docs/readmeBlocks.js"
import {
  entryOf,
  FROM_TARBALL,
  fileOf,
  node24,
  PROGRAMS,
  type Runner,
  runFile,
  SERVERS,
  startServerBlock
} from "../docs/readmeExamples.js"
import { type DemoServer, startDemoServer } from "../examples/processes.js"
import { npmInstall, packedScratch, peerSpecs, root, versionOf } from "../support/tarball.js"

/** tsx's loader, from this repository: the app runs the examples' `.ts` files as they are. */
const TSX_LOADER = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href

const blocks = readmeBlocks()
/**
 * A block of one line that runs (a program or a server), wherever in the documentation it is, found
 * by a piece of its code.
 */
const blockOf = (effect: 3 | 4, code: string): Block => {
  const found = blocks.filter(
    (block) =>
      block.effect === effect &&
      (block.kind === "program" || block.kind === "server") &&
      block.code.includes(code)
  )
  if (found.length !== 1) {
    const where = found.map(whereOf).join(", ")
    throw new Error(`${found.length} Effect ${effect} blocks hold ${code} (${where})`)
  }
  return found[0]!
}
/**
 * The Promise client's first example (docs/client.md): a facade program that logs in, adds and
 * deletes a product and queries, the same on both lines but for its import.
 */
const promiseExample = blockOf(4, 'await svc.get<Array<Product>>("/products"')

/**
 * What the traces example needs: `@effect/opentelemetry` at the line's version, and the
 * OpenTelemetry SDK its `NodeSdk` imports (docs/effect.md's install line), at this repository's versions.
 */
const otel = (version: (name: string) => string): Array<string> => [
  `@effect/opentelemetry@${version("@effect/opentelemetry")}`,
  ...OTEL_SDK.map((name) => `${name}@${versionOf(name)}`)
]

/** The documented line for the traces example, less `@effect/opentelemetry`. */
const OTEL_SDK = /npm install @effect\/opentelemetry ((?:@opentelemetry\/[\w-]+ ?)+)/
  .exec(documents().map(documentText).join("\n"))![1]!
  .trim()
  .split(" ")

/** The traces example (docs/effect.md): Effect 4's, or on Effect 3 the same through `svc-sdk/v3`. */
const tracesExample = (): Block => blockOf(4, FROM_TARBALL[4][0])

const lines = [
  {
    line: "Effect 4",
    install: (): Array<string> => [
      `@effect/platform-node@${versionOf4("@effect/platform-node")}`,
      ...otel(versionOf4)
    ],
    node: node24,
    spanName: "GET",
    traces: tracesExample,
    examples: (): Array<Block> => [
      promiseExample,
      ...FROM_TARBALL[4].slice(1).map((code) => blockOf(4, code))
    ]
  },
  {
    line: "Effect 3",
    install: (): Array<string> => [
      ...peerSpecs(),
      `@effect/platform-node@${versionOf("@effect/platform-node")}`,
      ...otel(versionOf)
    ],
    node: () => process.execPath,
    spanName: "http.client GET",
    traces: (): Block => {
      const block = tracesExample()
      return {
        ...block,
        effect: 3,
        code: block.code.replaceAll('from "svc-sdk"', 'from "svc-sdk/v3"')
      }
    },
    examples: (): Array<Block> => [
      {
        ...promiseExample,
        effect: 3,
        code: promiseExample.code.replaceAll('from "svc-sdk"', 'from "svc-sdk/v3"')
      },
      ...FROM_TARBALL[3].map((code) => blockOf(3, code))
    ]
  }
] as const

/** The version of a package in the Effect 4 toolchain. */
function versionOf4(name: string): string {
  return versionOf(`../toolchains/effect4/node_modules/${name}`)
}

describe.each(lines)("the documented examples from the packed tarball, $line", (spec) => {
  let scratch = ""
  let demo: DemoServer
  let runner: Runner

  beforeAll(async () => {
    const packed = await packedScratch("readme-app-", {
      name: "readme-app",
      private: true,
      type: "module"
    })
    scratch = packed.dir
    await npmInstall(scratch, [packed.tarball, ...spec.install()])
    const node = spec.node()
    runner = {
      command: async (_block, file) => [node, ["--import", TSX_LOADER, file]],
      cwd: scratch
    }
    demo = await startDemoServer()
  }, 240_000)

  afterAll(async () => {
    if (demo) expect(await demo.stop()).toBe(0)
    if (scratch) rmSync(scratch, { recursive: true, force: true })
  })

  it("imports svc-sdk from the installed tarball, not from this repository", () => {
    expect(promiseExample.code).toContain('from "svc-sdk"')
    for (const block of spec.examples()) expect(block.code).not.toContain("../")
  })

  it("runs the traces example: the call's span, a child of the caller's, exported", async () => {
    const block = spec.traces()
    const { code, stdout, stderr } = await runFile(runner, block, fileOf(scratch, block, demo.url))
    expect(stderr).toBe("")
    expect(code).toBe(0)
    expect(stdout).toContain(`  name: '${spec.spanName}',`)
    expect(stdout).toMatch(/'http\.response\.status_code': 200/)
    expect(stdout).toMatch(/'url\.full': 'http:\/\/127\.0\.0\.1:\d+\/products\?limit=REDACTED'/)
    expect(stdout).toMatch(/^ {2}name: 'list products',$/m)
  }, 60_000)

  for (const [index, name] of ["Promise", "Effect", "router", "HttpApi"].entries()) {
    it(`runs the ${name} example`, async () => {
      const block = spec.examples()[index]!
      const file = fileOf(scratch, block, demo.url)
      if (block.kind === "server") {
        const { check } = entryOf(SERVERS, block)
        const server = await startServerBlock(runner, block, file)
        try {
          await check(server.url)
        } finally {
          await server.stop()
        }
      } else {
        const { prints } = entryOf(PROGRAMS, block)
        const { code, stdout, stderr } = await runFile(runner, block, file)
        expect(stderr).toBe("")
        expect(code).toBe(0)
        for (const pattern of prints) expect(stdout).toMatch(pattern)
      }
    }, 60_000)
  }
})
