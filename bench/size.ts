/**
 * What the client adds to a browser bundle: esbuild (minified, tree-shaken, platform browser) over
 * small consumer files, beside the same measure for ky, ofetch, axios and a bare @effect/platform
 * FetchHttpClient GET (the floor for any client on @effect/platform).
 */
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build, type Metafile } from "esbuild"
import type { BenchOptions, Section } from "./report.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const dist = `${root}dist/esm`

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
    import { FetchHttpClient } from "@effect/platform"
    import { SvcClient } from "${dist}/index.js"
    const User = Schema.Struct({ id: Schema.Number, name: Schema.String })
    const program = Effect.gen(function* () {
      const client = yield* SvcClient
      return yield* client.get("/users/1", { schema: User })
    }).pipe(Effect.provide(SvcClient.layer("https://api.example.com")), Effect.provide(FetchHttpClient.layer))
    Effect.runPromise(program).then(console.log)`,
  platformFetchGet: `
    import { Effect } from "effect"
    import { FetchHttpClient, HttpClient } from "@effect/platform"
    const program = HttpClient.get("https://api.example.com/x").pipe(
      Effect.flatMap((res) => res.json),
      Effect.provide(FetchHttpClient.layer)
    )
    Effect.runPromise(program).then(console.log)`,
  ky: `import ky from "ky"; ky.get("https://api.example.com/x").json().then(console.log)`,
  ofetch: `import { ofetch } from "ofetch"; ofetch("https://api.example.com/x").then(console.log)`,
  axios: `import axios from "axios"; axios.get("https://api.example.com/x").then(console.log)`
} as const

export type Consumer = keyof typeof consumers

export interface BundleSize {
  readonly raw: number
  readonly gzip: number
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
    write: false,
    metafile: true,
    logLevel: "silent"
  })
  const code = result.outputFiles[0]!.contents
  return {
    raw: code.byteLength,
    gzip: gzipSync(code, { level: 9 }).byteLength,
    metafile: result.metafile
  }
}

/** Input modules that contributed bytes to the bundle. */
export const bundledModules = (metafile: Metafile): Array<string> =>
  Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path)
  )

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`

export const run = async (_options: BenchOptions): Promise<Section> => {
  const sizes = {} as Record<Consumer, BundleSize>
  for (const name of Object.keys(consumers) as Array<Consumer>)
    sizes[name] = await bundleConsumer(name)
  const floor = sizes.platformFetchGet.gzip
  const label: Record<Consumer, string> = {
    facadeGet: "(1) svc-sdk createSvc(url).get('/x')",
    facadeQuery: "(2) (1) + query builder + two operators",
    effectSchema: "(3) Effect program: SvcClient + Schema",
    platformFetchGet: "@effect/platform FetchHttpClient GET (floor)",
    ky: "ky GET",
    ofetch: "ofetch GET",
    axios: "axios GET"
  }
  const figures = (Object.keys(consumers) as Array<Consumer>).map((name) => ({
    name: label[name],
    value: sizes[name].gzip,
    unit: "B gzip",
    note: `${kb(sizes[name].raw)} raw`,
    ratios: [{ peer: "platform floor", ratio: sizes[name].gzip / floor }]
  }))
  const budget = sizes.facadeGet.gzip / floor
  return {
    title: "Bundle size (browser)",
    method:
      "esbuild, minified, tree-shaken, platform browser, ESM; gzip level 9. Sizes do not vary between runs.",
    figures,
    goals: [
      {
        text: "(1) at most 1.1× the bare @effect/platform fetch GET (gzip)",
        met: budget <= 1.1,
        detail: `${budget.toFixed(2)}× (${sizes.facadeGet.gzip} vs ${floor} B)`
      }
    ]
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await run({ runs: 1, seconds: 0 }), null, 2))
}
