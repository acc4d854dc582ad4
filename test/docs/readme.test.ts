/**
 * Every TypeScript block in README.md compiles against the sources, as a user's file importing
 * `svc-sdk` would. A block fenced as `ts no-check` is skipped (for fragments that are not programs).
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { expect, it } from "vitest"

const root = resolve(import.meta.dirname, "../..")

const readmeBlocks = (markdown: string): Array<{ line: number; code: string }> => {
  const blocks: Array<{ line: number; code: string }> = []
  const fence = /^```(ts|typescript)\s*$([\s\S]*?)^```\s*$/gm
  for (const match of markdown.matchAll(fence)) {
    const line = markdown.slice(0, match.index).split("\n").length
    blocks.push({ line, code: match[2]! })
  }
  return blocks
}

it("type-checks every TypeScript block of the README", () => {
  const blocks = readmeBlocks(readFileSync(join(root, "README.md"), "utf8"))
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
          "svc-sdk": ["../../src/index.ts"],
          "svc-sdk/*": ["../../src/*/index.ts"],
          "#transport": ["../../src/Client/internal/transport.node.ts"],
          "#httpClientAdapter": ["../../src/Client/internal/httpClientAdapter.ts"],
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
