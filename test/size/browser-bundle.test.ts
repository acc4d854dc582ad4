/**
 * The browser entry stays a browser entry: bundling the facade for the browser pulls in no Node-only
 * module. Keeping `effect/Schema` out is a known gap: `@effect/platform`'s Headers, UrlParams,
 * HttpBody and error modules build schemas when they load, so every client on its `HttpClient`
 * (the bare FetchHttpClient GET too) carries Schema. The `it.fails` below flips when that changes.
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

  it.each(["facadeGet", "facadeQuery"] as const)("%s has no Node-only module", async (name) => {
    const modules = await modulesOf(name)
    expect(modules.some((path) => path.includes("transport.fetch"))).toBe(true)
    expect(modules.filter((path) => nodeOnly.test(path))).toEqual([])
  })

  it.fails("facadeGet carries no effect/Schema (known gap, see above)", async () => {
    const modules = await modulesOf("facadeGet")
    expect(modules.filter((path) => schema.test(path))).toEqual([])
  })

  it("an Effect program that uses a Schema does bundle Schema (the check can see it)", async () => {
    const modules = await modulesOf("effectSchema")
    expect(modules.some((path) => schema.test(path))).toBe(true)
    expect(modules.filter((path) => nodeOnly.test(path))).toEqual([])
  })
})
