/**
 * What the client adds to a browser bundle: esbuild (minified, tree-shaken, platform browser) over
 * small consumer files, on each Effect line, beside the same measure for ky, ofetch, axios and a
 * bare FetchHttpClient GET on each line (the floor for any client on that line's HTTP client).
 * The Effect 4 consumers resolve `effect` from the Effect 4 toolchain, as an Effect 4 app would.
 */
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build, type Metafile, type Plugin } from "esbuild"
import type { BenchOptions, Section } from "./report.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const dist = `${root}dist/esm`
const effect4 = `${root}toolchains/effect4`

/** Consumer entry files, as a user would write them against the published package. */
export const consumers = {
  facadeGet: `
    import { createSvc } from "${dist}/index.js"
    createSvc("https://api.example.com").get("/x").then((r) => console.log(r))`,
  facadeQuery: `
    import { createSvc } from "${dist}/index.js"
    import { gte, inOp } from "${dist}/Query/index.js"
    const svc = createSvc("https://api.example.com")
    svc.get("/x").then((r) => console.log(r))
    svc.query("/users").where("age", gte(18)).where("role", inOp(["a", "b"])).page(2).get().then(console.log)`,
  effectSchema: `
    import { Effect, Schema } from "effect"
    import { FetchHttpClient } from "effect/http"
    import { SvcClient } from "${dist}/index.js"
    const User = Schema.Struct({ id: Schema.Number, name: Schema.String })
    const program = Effect.gen(function* () {
      const client = yield* SvcClient
      return yield* client.get("/users/1", { schema: User })
    }).pipe(Effect.provide(SvcClient.layer("https://api.example.com")), Effect.provide(FetchHttpClient.layer))
    Effect.runPromise(program).then(console.log)`,
  httpFetchGet: `
    import * as Effect from "effect/Effect"
    import { FetchHttpClient, HttpClient } from "effect/http"
    const program = HttpClient.get("https://api.example.com/x").pipe(
      Effect.flatMap((res) => res.json),
      Effect.provide(FetchHttpClient.layer)
    )
    Effect.runPromise(program).then(console.log)`,
  v3FacadeGet: `
    import { createSvc } from "${dist}/v3/index.js"
    createSvc("https://api.example.com").get("/x").then((r) => console.log(r))`,
  v3FacadeQuery: `
    import { createSvc } from "${dist}/v3/index.js"
    import { gte, inOp } from "${dist}/Query/index.js"
    const svc = createSvc("https://api.example.com")
    svc.get("/x").then((r) => console.log(r))
    svc.query("/users").where("age", gte(18)).where("role", inOp(["a", "b"])).page(2).get().then(console.log)`,
  v3EffectSchema: `
    import { Effect, Schema } from "effect"
    import { FetchHttpClient } from "@effect/platform"
    import { SvcClient } from "${dist}/v3/index.js"
    const User = Schema.Struct({ id: Schema.Number, name: Schema.String })
    const program = Effect.gen(function* () {
      const client = yield* SvcClient
      return yield* client.get("/users/1", { schema: User })
    }).pipe(Effect.provide(SvcClient.layer("https://api.example.com")), Effect.provide(FetchHttpClient.layer))
    Effect.runPromise(program).then(console.log)`,
  platformFetchGet: `
    import * as Effect from "effect/Effect"
    import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
    import * as HttpClient from "@effect/platform/HttpClient"
    const program = HttpClient.get("https://api.example.com/x").pipe(
      Effect.flatMap((res) => res.json),
      Effect.provide(FetchHttpClient.layer)
    )
    Effect.runPromise(program).then(console.log)`,
  ky: `import ky from "ky"; ky.get("https://api.example.com/x").json().then(console.log)`,
  ofetch: `import { ofetch } from "ofetch"; ofetch("https://api.example.com/x").then(console.log)`,
  axios: `import axios from "axios"; axios.get("https://api.example.com/x").then(console.log)`
} as const

/** Consumers of the Effect 4 line: `effect` resolves from the Effect 4 toolchain. */
const onEffect4: ReadonlySet<string> = new Set([
  "facadeGet",
  "facadeQuery",
  "effectSchema",
  "httpFetchGet"
])

/** An app on Effect 4 has `effect` 4 in its node_modules: resolve it there for those consumers. */
const effect4Plugin: Plugin = {
  name: "effect4",
  setup(build) {
    build.onResolve({ filter: /^effect(\/|$)/ }, (args) =>
      args.pluginData === effect4
        ? undefined
        : build.resolve(args.path, { kind: args.kind, resolveDir: effect4, pluginData: effect4 })
    )
  }
}

export type Consumer = keyof typeof consumers

export interface BundleSize {
  /** What the page loads at once: the entry chunk and the chunks it imports statically. */
  readonly raw: number
  readonly gzip: number
  /** Chunks loaded on demand (`import()`), e.g. `effect/Schema` when a request passes a schema. */
  readonly lazyGzip: number
  readonly metafile: Metafile
}

/** Bundles one consumer entry the way an app's production build would. */
export const bundleConsumer = async (name: Consumer): Promise<BundleSize> => {
  const result = await build({
    stdin: { contents: consumers[name], resolveDir: root, loader: "ts" },
    bundle: true,
    minify: true,
    treeShaking: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    // as an app's production build does (Vite, rollup, webpack): import() becomes its own chunk
    splitting: true,
    outdir: "out",
    write: false,
    metafile: true,
    logLevel: "silent",
    plugins: onEffect4.has(name) ? [effect4Plugin] : []
  })
  const initial = initialOutputs(result.metafile)
  let raw = 0
  let gzip = 0
  let lazyGzip = 0
  for (const file of result.outputFiles) {
    const name = relative(root, file.path)
    const size = gzipSync(file.contents, { level: 9 }).byteLength
    if (initial.has(name)) {
      raw += file.contents.byteLength
      gzip += size
    } else {
      lazyGzip += size
    }
  }
  return { raw, gzip, lazyGzip, metafile: result.metafile }
}

/** The entry output and every output it imports statically, transitively. */
const initialOutputs = (metafile: Metafile): Set<string> => {
  const initial = new Set<string>()
  const visit = (path: string) => {
    if (initial.has(path)) return
    initial.add(path)
    for (const imported of metafile.outputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement") visit(imported.path)
    }
  }
  // the consumer file is the one entry the page loads; every other entry is an import() target
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint === "<stdin>") visit(path)
  }
  return initial
}

/** Input modules that contributed bytes to what the page loads at once, or to any output. */
export const bundledModules = (
  metafile: Metafile,
  which: "initial" | "all" = "initial"
): Array<string> => {
  const initial = initialOutputs(metafile)
  return Object.entries(metafile.outputs)
    .filter(([path]) => which === "all" || initial.has(path))
    .flatMap(([, output]) =>
      Object.entries(output.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([path]) => path)
    )
}

/** The browser facade's budget on each line: what `createSvc(url).get("/x")` loads at once. */
const FACADE_BUDGET = { effect4: 35_000, effect3: 65_000 }

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`

export const run = async (_options: BenchOptions): Promise<Section> => {
  const sizes = {} as Record<Consumer, BundleSize>
  for (const name of Object.keys(consumers) as Array<Consumer>)
    sizes[name] = await bundleConsumer(name)
  const floor = (name: Consumer) =>
    onEffect4.has(name) || ["ky", "ofetch", "axios"].includes(name)
      ? { peer: "effect/http floor", size: sizes.httpFetchGet.gzip }
      : { peer: "@effect/platform floor", size: sizes.platformFetchGet.gzip }
  const label: Record<Consumer, string> = {
    facadeGet: "(1) Effect 4: svc-sdk createSvc(url).get('/x')",
    facadeQuery: "(2) Effect 4: (1) + query builder + two operators",
    effectSchema: "(3) Effect 4: Effect program, SvcClient + Schema",
    httpFetchGet: "Effect 4: effect/http FetchHttpClient GET (floor)",
    v3FacadeGet: "(4) Effect 3: svc-sdk/v3 createSvc(url).get('/x')",
    v3FacadeQuery: "(5) Effect 3: (4) + query builder + two operators",
    v3EffectSchema: "(6) Effect 3: Effect program, SvcClient + Schema",
    platformFetchGet: "Effect 3: @effect/platform FetchHttpClient GET (floor)",
    ky: "ky GET",
    ofetch: "ofetch GET",
    axios: "axios GET"
  }
  const figures = (Object.keys(consumers) as Array<Consumer>).map((name) => ({
    name: label[name],
    value: sizes[name].gzip,
    unit: "B gzip",
    note: `${kb(sizes[name].raw)} raw${sizes[name].lazyGzip > 0 ? `, + ${sizes[name].lazyGzip} B gzip loaded on demand` : ""}`,
    ratios: [{ peer: floor(name).peer, ratio: sizes[name].gzip / floor(name).size }]
  }))
  const budget = (name: "facadeGet" | "v3FacadeGet", limit: number) => ({
    text: `(${name === "facadeGet" ? 1 : 4}) at most ${limit.toLocaleString("en-US")} B gzip loaded at once`,
    met: sizes[name].gzip <= limit,
    detail: `${sizes[name].gzip.toLocaleString("en-US")} B (${(sizes[name].gzip / floor(name).size).toFixed(2)}× the ${floor(name).peer})`
  })
  const noSchema = (name: "facadeGet" | "v3FacadeGet") => ({
    text: `(${name === "facadeGet" ? 1 : 4}) loads no effect/Schema, before or after, and no HTTP client`,
    met: !bundledModules(sizes[name].metafile, "all").some(
      (path) =>
        /effect[/\\]dist[/\\](esm[/\\])?Schema\.js$/.test(path) ||
        /@effect[/\\]platform[/\\]|effect[/\\]dist[/\\]http[/\\]/.test(path)
    ),
    detail: "module list of every output"
  })
  return {
    title: "Bundle size (browser)",
    method:
      "esbuild, minified, tree-shaken, platform browser, ESM, code splitting on (as an app's production build); gzip level 9; what the page loads at once (the consumer's entry and its static imports), chunks loaded on demand beside it. Effect 4 consumers resolve effect 4.1 (as an Effect 4 app does), Effect 3 consumers effect 3 with @effect/platform. The floors are a bare FetchHttpClient GET on each line. Sizes do not vary between runs.",
    figures,
    goals: [
      budget("facadeGet", FACADE_BUDGET.effect4),
      noSchema("facadeGet"),
      budget("v3FacadeGet", FACADE_BUDGET.effect3),
      noSchema("v3FacadeGet")
    ]
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await run({ runs: 1, seconds: 0 }), null, 2))
}
