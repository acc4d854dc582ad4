/**
 * The browser entry stays a browser entry: bundling the facade for the browser pulls in no Node-only
 * module, and no `effect/Schema` unless the user imports it.
 */
import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { bundleConsumer, bundledModules, type Consumer } from "../../bench/size.js"

const nodeOnly = /(^|[/\\])(undici|@effect[/\\]platform-node(-shared)?)[/\\]|transport\.node|^node:/
const schema = /effect[/\\]dist[/\\]esm[/\\](Schema|SchemaAST|ParseResult)\.js$/

const modulesOf = async (name: Consumer) => bundledModules((await bundleConsumer(name)).metafile)

describe("browser bundle", () => {
  it("needs the built package", () => {
    expect(existsSync(new URL("../../dist/esm/index.js", import.meta.url))).toBe(true)
  })

  it.each(["facadeGet", "facadeQuery"] as const)(
    "%s has no Node-only module and no Schema",
    async (name) => {
      const modules = await modulesOf(name)
      expect(modules.some((path) => path.includes("transport.fetch"))).toBe(true)
      expect(modules.filter((path) => nodeOnly.test(path))).toEqual([])
      expect(modules.filter((path) => schema.test(path))).toEqual([])
    }
  )

  it("an Effect program that uses a Schema does bundle Schema (the check can see it)", async () => {
    const modules = await modulesOf("effectSchema")
    expect(modules.some((path) => schema.test(path))).toBe(true)
    expect(modules.filter((path) => nodeOnly.test(path))).toEqual([])
  })
})
