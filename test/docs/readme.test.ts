/**
 * Every TypeScript block in README.md compiles against the sources, as a user's file importing
 * `svc-sdk` would. A block fenced as `ts no-check` is skipped (for fragments that are not programs).
 * `readme-run.test.ts` runs them.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect, it } from "vitest"
import { readmeBlocks, ROOT as root } from "./readmeBlocks.js"

it("type-checks every TypeScript block of the README", () => {
  const blocks = readmeBlocks().filter((block) => block.kind !== "no-check")
  expect(blocks.length).toBeGreaterThan(3)
  const dir = join(root, ".tmp/readme")
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const files = blocks.map(({ line, code }) => {
    const file = `readme-line-${line}.ts`
    writeFileSync(join(dir, file), `${code}\nexport {}\n`)
    return file
  })
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: "../../tsconfig.base.json",
      compilerOptions: {
        noEmit: true,
        noUnusedLocals: false,
        noUnusedParameters: false,
        paths: {
          "svc-sdk/v3": ["../../src/v3/index.ts"],
          "svc-sdk/*": ["../../src/*/index.ts"],
          "#transport": ["../../src/core/transport.node.ts"],
          "#httpClientAdapter": ["../../src/v3/Client/internal/httpClientAdapter.ts"],
          "#asyncStorage": ["../../src/Storage/internal/asyncStorageModule.ts"]
        }
      },
      files
    })
  )
  let output = ""
  try {
    execFileSync("node", [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], {
      encoding: "utf8"
    })
  } catch (error) {
    output = String((error as { stdout?: string }).stdout ?? error)
  }
  expect(output, "README.md blocks (file names give the block's line)").toBe("")
})
