/**
 * pnpm (strict node_modules, no hoisting) installs the packed tarball with the README's install
 * line for the root entries (`npm install svc-sdk`: the peer pnpm picks is Effect 4), and every
 * Effect 4 entry point imports from ESM and CommonJS on Node 24; the React Native condition
 * resolves the optional peer's module, every other condition the stub.
 */
import { execFileSync } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { nodeBinary, OTHER_VERSIONS } from "../../scripts/node-versions.mjs"
import { exec, packedScratch, root } from "../support/tarball.js"

// pnpm 12 is a native binary (@pnpm/exe.<platform>): its package's Node entry runs it
const pnpm = join(root, "node_modules", "pnpm", "bin", "pnpm.mjs")
const entries = ["svc-sdk", "svc-sdk/Client", "svc-sdk/Query", "svc-sdk/Auth", "svc-sdk/Storage"]

/** The README's install line for the root entries: svc-sdk alone, its peer left to the installer. */
const installLine = (): ReadonlyArray<string> => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  if (!/^npm install svc-sdk$/m.test(readme)) {
    throw new Error("README.md has no `npm install svc-sdk` line")
  }
  return []
}

let scratch = ""
/** Effect 4 needs Node ≥ 22.19: the entries run on Node 24. */
const node24 = () =>
  nodeBinary(OTHER_VERSIONS.find((version: string) => version.startsWith("24."))!)
const node = (file: string, conditions: ReadonlyArray<string> = []) =>
  execFileSync(node24(), [...conditions.map((c) => `--conditions=${c}`), file], {
    cwd: scratch,
    encoding: "utf8"
  }).trim()

beforeAll(async () => {
  const packed = await packedScratch("pnpm-app-", { name: "pnpm-app", private: true })
  scratch = packed.dir
  await exec(
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
    { cwd: scratch }
  )
}, 180_000)

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

describe("pnpm installs the tarball with the README's line", () => {
  it("installs Effect 4, the peer's newest line", () => {
    // pnpm does not hoist a peer it installed: the effect svc-sdk resolves is the one it uses
    writeFileSync(
      join(scratch, "effect-version.cjs"),
      `const { createRequire } = require("node:module")
       const own = createRequire(require.resolve("svc-sdk"))
       console.log(require(own.resolve("effect").replace(/dist.*$/, "package.json")).version)`
    )
    expect(node("effect-version.cjs")).toMatch(/^4\./)
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
       const own = createRequire(createRequire(import.meta.url).resolve("svc-sdk/Client"))
       console.log(own.resolve("#transport").split("/svc-sdk/")[1])`
    )
    expect(node("transport.mjs", ["react-native"])).toBe("dist/cjs/core/transport.fetch.cjs")
  })
})
