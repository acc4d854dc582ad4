/**
 * pnpm (strict node_modules, no hoisting) installs the packed tarball with the README's install
 * line, and every entry point imports from ESM and CommonJS; the React Native condition resolves
 * the optional peer's module, every other condition the stub.
 */
import { execFileSync } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { packedScratch, root } from "../support/tarball.js"

const pnpm = join(root, "node_modules", "pnpm", "bin", "pnpm.cjs")
const entries = [
  "svc-sdk/v3",
  "svc-sdk/v3/Client",
  "svc-sdk/Query",
  "svc-sdk/v3/Auth",
  "svc-sdk/Storage"
]

/** The README's install line, with the tarball for `svc-sdk`. */
const installLine = (): ReadonlyArray<string> => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const line = /npm install svc-sdk (effect@\S+) (@effect\/platform@\S+)/.exec(readme)
  if (line === null) throw new Error("README.md has no `npm install svc-sdk …` line")
  return [line[1]!, line[2]!]
}

let scratch = ""
const node = (file: string, conditions: ReadonlyArray<string> = []) =>
  execFileSync(process.execPath, [...conditions.map((c) => `--conditions=${c}`), file], {
    cwd: scratch,
    encoding: "utf8"
  }).trim()

beforeAll(() => {
  const packed = packedScratch("pnpm-app-", { name: "pnpm-app", private: true })
  scratch = packed.dir
  execFileSync(
    process.execPath,
    [
      pnpm,
      "add",
      "--ignore-scripts",
      "--store-dir",
      join(scratch, ".store"),
      packed.tarball,
      ...installLine()
    ],
    { cwd: scratch, stdio: ["ignore", "pipe", "pipe"] }
  )
}, 180_000)

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

describe("pnpm installs the tarball with the README's line", () => {
  it("installs Effect 3, not the latest Effect", () => {
    const effect = JSON.parse(
      readFileSync(join(scratch, "node_modules", "effect", "package.json"), "utf8")
    ) as { version: string }
    expect(effect.version).toMatch(/^3\./)
  })

  it("imports every entry point from ESM and CommonJS", () => {
    writeFileSync(
      join(scratch, "esm.mjs"),
      `${entries.map((e, i) => `import * as m${i} from ${JSON.stringify(e)}`).join("\n")}
       console.log(JSON.stringify([${entries.map((_, i) => `Object.keys(m${i}).length`)}]))`
    )
    const esm = JSON.parse(node("esm.mjs")) as Array<number>
    expect(esm).toHaveLength(entries.length)
    for (const count of esm) expect(count).toBeGreaterThan(0)
    writeFileSync(
      join(scratch, "cjs.cjs"),
      `console.log(JSON.stringify(${JSON.stringify(entries)}.map((e) => Object.keys(require(e)).length)))`
    )
    for (const count of JSON.parse(node("cjs.cjs")) as Array<number>) {
      expect(count).toBeGreaterThan(0)
    }
  })

  it("#asyncStorage: the stub by default, the optional peer's loader under react-native", () => {
    // resolved from inside the installed package, as its own modules resolve it
    writeFileSync(
      join(scratch, "resolve.cjs"),
      `const { createRequire } = require("node:module")
       const own = createRequire(require.resolve("svc-sdk/Storage"))
       console.log(own.resolve("#asyncStorage").split("/svc-sdk/")[1])`
    )
    expect(node("resolve.cjs")).toBe("dist/cjs/Storage/internal/asyncStorageModule.cjs")
    expect(node("resolve.cjs", ["react-native"])).toBe(
      "dist/cjs/Storage/internal/asyncStorageModule.native.cjs"
    )
    writeFileSync(
      join(scratch, "transport.mjs"),
      `import { createRequire } from "node:module"
       const own = createRequire(createRequire(import.meta.url).resolve("svc-sdk/v3/Client"))
       console.log(own.resolve("#transport").split("/svc-sdk/")[1])`
    )
    expect(node("transport.mjs", ["react-native"])).toBe("dist/cjs/core/transport.fetch.cjs")
  })
})
