/**
 * The browser entry stays a browser entry: bundling the facade for the browser pulls in no
 * Node-only module, and neither `effect/Schema` nor `@effect/platform`, not even as a chunk loaded
 * later: a request that passes an `effect/Schema` loads `effect/ParseResult` on demand (the app's
 * own schema brings `Schema`), and the `HttpClient` adapter behind `SvcClient.layer` is tree-shaken.
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

  it.each(["facadeGet", "facadeQuery"] as const)(
    "%s loads no effect/Schema and no @effect/platform at once",
    async (name) => {
      const modules = await modulesOf(name)
      expect(modules.filter((path) => schema.test(path))).toEqual([])
      expect(modules.filter((path) => path.includes("@effect/platform"))).toEqual([])
    }
  )

  it.each(["facadeGet", "facadeQuery"] as const)(
    "%s bundles no effect/Schema and no @effect/platform, not even as a chunk loaded later",
    async (name) => {
      const modules = bundledModules((await bundleConsumer(name)).metafile, "all")
      expect(
        modules.filter((path) => /effect[/\\]dist[/\\]esm[/\\]Schema\.js$/.test(path))
      ).toEqual([])
      expect(modules.filter((path) => path.includes("@effect/platform"))).toEqual([])
      // a request with a schema loads the decoder on demand
      expect(
        modules.some((path) => /effect[/\\]dist[/\\]esm[/\\]ParseResult\.js$/.test(path))
      ).toBe(true)
    }
  )

  it("an Effect program that uses a Schema does bundle Schema (the check can see it)", async () => {
    const modules = await modulesOf("effectSchema")
    expect(modules.some((path) => schema.test(path))).toBe(true)
    expect(modules.filter((path) => nodeOnly.test(path))).toEqual([])
  })
})
