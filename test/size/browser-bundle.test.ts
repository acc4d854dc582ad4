/**
 * The browser entry stays a browser entry, on each Effect line: bundling the facade for the browser
 * pulls in no Node-only module, and neither `effect/Schema` nor the line's HTTP client, not even as
 * a chunk loaded later: a request that passes an `effect/Schema` loads the decoder on demand
 * (`effect/SchemaParser` on Effect 4, `effect/ParseResult` on Effect 3; the app's own schema brings
 * `Schema`), and the `HttpClient` adapter behind `SvcClient.layer` is tree-shaken.
 */
import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { bundleConsumer, bundledModules, type Consumer } from "../../bench/size.js"

const nodeOnly = /(^|[/\\])(undici|@effect[/\\]platform-node(-shared)?)[/\\]|transport\.node|^node:/
const schema = /effect[/\\]dist[/\\](esm[/\\])?(Schema|SchemaAST|SchemaParser|ParseResult)\.js$/
const schemaModule = /effect[/\\]dist[/\\](esm[/\\])?Schema\.js$/
/** The line's own HTTP client: `@effect/platform` on Effect 3, `effect/http` on Effect 4. */
const httpClient = /@effect[/\\]platform[/\\]|effect[/\\]dist[/\\]http[/\\]/

const lines = [
  {
    line: "Effect 4",
    get: "facadeGet",
    query: "facadeQuery",
    schemaProgram: "effectSchema",
    decoder: /effect[/\\]dist[/\\]SchemaParser\.js$/
  },
  {
    line: "Effect 3",
    get: "v3FacadeGet",
    query: "v3FacadeQuery",
    schemaProgram: "v3EffectSchema",
    decoder: /effect[/\\]dist[/\\]esm[/\\]ParseResult\.js$/
  }
] as const

/** Each consumer bundled once for all the checks on it (a minified build with gzip sizes). */
const bundles = new Map<Consumer, ReturnType<typeof bundleConsumer>>()
const bundleOf = (name: Consumer) => {
  const bundle = bundles.get(name) ?? bundleConsumer(name)
  bundles.set(name, bundle)
  return bundle
}

const modulesOf = async (name: Consumer) => bundledModules((await bundleOf(name)).metafile)

describe.each(lines)("browser bundle, $line", ({ get, query, schemaProgram, decoder }) => {
  it("needs the built package", () => {
    expect(existsSync(new URL("../../dist/esm/index.js", import.meta.url))).toBe(true)
    expect(existsSync(new URL("../../dist/esm/v3/index.js", import.meta.url))).toBe(true)
  })

  it.each([get, query])("%s has no Node-only module", async (name) => {
    const modules = await modulesOf(name)
    expect(modules.some((path) => path.includes("transport.fetch"))).toBe(true)
    expect(modules.filter((path) => nodeOnly.test(path))).toEqual([])
  })

  it.each([get, query])("%s loads no effect/Schema and no HTTP client at once", async (name) => {
    const modules = await modulesOf(name)
    expect(modules.filter((path) => schema.test(path))).toEqual([])
    expect(modules.filter((path) => httpClient.test(path))).toEqual([])
  })

  it.each([get, query])(
    "%s bundles no effect/Schema and no HTTP client, not even as a chunk loaded later",
    async (name) => {
      const modules = bundledModules((await bundleOf(name)).metafile, "all")
      expect(modules.filter((path) => schemaModule.test(path))).toEqual([])
      expect(modules.filter((path) => httpClient.test(path))).toEqual([])
      // a request with a schema loads the decoder on demand
      expect(modules.some((path) => decoder.test(path))).toBe(true)
    }
  )

  it("an Effect program that uses a Schema does bundle Schema (the check can see it)", async () => {
    const modules = await modulesOf(schemaProgram)
    expect(modules.some((path) => schema.test(path))).toBe(true)
    expect(modules.filter((path) => nodeOnly.test(path))).toEqual([])
  })
})

/** effect/Schedule and what only it needs, as Effect 4's browser bundle names them. */
const scheduleModules = /effect[/\\]dist[/\\](Schedule|Pull|internal[/\\](schedule|random))\.js$/

describe("browser bundle, Effect 4: retries", () => {
  it("load effect/Schedule on a first transient failure, not at once", async () => {
    const { metafile } = await bundleOf("facadeGet")
    expect(bundledModules(metafile).filter((path) => scheduleModules.test(path))).toEqual([])
    // bundled all the same, in the chunk the retries load
    expect(
      bundledModules(metafile, "all").filter((path) =>
        /effect[/\\]dist[/\\]Schedule\.js$/.test(path)
      )
    ).toHaveLength(1)
  })
})

/**
 * What only some apps use, loaded by its first use: session refresh, Standard Schema validation,
 * the redirect rules (loaded by the first response that may be a redirect), and the storages a
 * client may look for (loaded from the client's making, awaited by its first look).
 */
const onDemand =
  /(common[/\\]refresh|core[/\\](standardValidate|redirect)|Storage[/\\]internal[/\\](detect|browserStorage|cookieStorage|webStorage|asyncStorage))\.js$/

describe.each(lines)("browser bundle, $line: what only some apps use", ({ get }) => {
  it("session refresh, Standard Schema validation, redirects and storage detection are chunks of their own, not loaded at once", async () => {
    const { metafile } = await bundleOf(get)
    expect(bundledModules(metafile).filter((path) => onDemand.test(path))).toEqual([])
    expect(
      bundledModules(metafile, "all")
        .filter((path) => onDemand.test(path))
        .map((path) => path.replace(/.*[/\\](common|core|internal)[/\\]/, "$1/"))
        .sort()
    ).toEqual([
      "common/refresh.js",
      "core/redirect.js",
      "core/standardValidate.js",
      "internal/asyncStorage.js",
      "internal/browserStorage.js",
      "internal/cookieStorage.js",
      "internal/detect.js",
      "internal/webStorage.js"
    ])
  })
})
