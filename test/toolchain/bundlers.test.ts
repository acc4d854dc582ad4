/**
 * A browser app bundled with webpack 5 and with rollup + node-resolve (browser), from the packed
 * tarball: no error and no warning about svc-sdk or the React Native peer, and no Node code in the
 * bundle.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { nodeResolve } from "@rollup/plugin-node-resolve"
import { type RollupLog, rollup } from "rollup"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import webpack from "webpack"
import { npmInstall, packedScratch } from "../support/tarball.js"

let scratch = ""

beforeAll(async () => {
  const packed = await packedScratch("bundled-app-", {
    name: "bundled-app",
    private: true,
    type: "module"
  })
  scratch = packed.dir
  await npmInstall(scratch, [packed.tarball])
  writeFileSync(
    join(scratch, "main.js"),
    `import { createSvc } from "svc-sdk"
     createSvc(location.origin).get("/x").then((response) => console.log(response.status))`
  )
}, 180_000)

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

/** What a bundler says that concerns this package (its files, its optional peer, undici). */
const aboutUs = (messages: ReadonlyArray<string>) =>
  messages.filter((message) => /node_modules\/svc-sdk\/|async-storage|undici/i.test(message))

/** Node code that must never reach a browser bundle. */
const expectNoNodeCode = (code: string) => {
  expect(code).not.toMatch(/["']node:(zlib|http|buffer|util)["']/)
  expect(code).not.toContain("getGlobalDispatcher")
  // an import of the optional peer (the name may stay in a doc comment)
  expect(code).not.toMatch(/(import\(|from |require\()\s*["']@react-native-async-storage/)
}

describe("bundlers, from the packed tarball", () => {
  it("webpack 5 (target web): no error, no warning about svc-sdk", async () => {
    const stats = await new Promise<webpack.Stats>((done, fail) =>
      webpack(
        {
          mode: "production",
          target: "web",
          context: scratch,
          entry: "./main.js",
          output: { path: join(scratch, "webpack"), filename: "app.js" },
          performance: { hints: false }
        },
        (error, result) => (error || result === undefined ? fail(error) : done(result))
      )
    )
    const json = stats.toJson({ all: false, errors: true, warnings: true })
    expect(json.errors ?? []).toEqual([])
    expect(aboutUs((json.warnings ?? []).map((warning) => warning.message))).toEqual([])
    expectNoNodeCode(readFileSync(join(scratch, "webpack", "app.js"), "utf8"))
  }, 120_000)

  it("rollup + @rollup/plugin-node-resolve (browser): no warning about svc-sdk", async () => {
    const warnings: Array<RollupLog> = []
    const bundle = await rollup({
      input: join(scratch, "main.js"),
      plugins: [nodeResolve({ browser: true, rootDir: scratch })],
      onwarn: (warning) => {
        warnings.push(warning)
      }
    })
    const { output } = await bundle.generate({ format: "es", inlineDynamicImports: true })
    await bundle.close()
    const messages = warnings.map(
      (warning) => `${warning.code ?? ""} ${warning.message} ${warning.id ?? ""}`
    )
    expect(aboutUs(messages)).toEqual([])
    expect(warnings.filter((warning) => warning.code === "UNRESOLVED_IMPORT")).toEqual([])
    expectNoNodeCode(output.map((chunk) => ("code" in chunk ? chunk.code : "")).join("\n"))
  }, 120_000)
})
