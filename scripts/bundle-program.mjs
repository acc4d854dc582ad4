// A TypeScript program of this repository as Node runs it: esbuild bundles it (the demo's example,
// examples/*.ts, or a documentation block the tests run) with svc-sdk's sources (the
// `svc-sdk-source` condition) into one ES module, and leaves every other package (effect, the
// platform, undici) to Node, which loads them from node_modules as an app's would. A TypeScript
// loader (tsx) runs each module it loads through its hooks, effect's several hundred files too:
// that doubled the demo server's start (about 4 s of CPU against 2). Bundled on each start (a
// fraction of a second), so an edited example runs as it is.
import { mkdirSync, readFileSync, renameSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { build } from "esbuild"

const root = resolve(import.meta.dirname, "..")

/**
 * A file's own URL where its code reads `import.meta.url`: the examples run their `main` when
 * `import.meta.url` is the program Node was started with (`process.argv[1]`), which the bundle
 * sets to the entry's source path, so each file sees itself as it would unbundled.
 */
const asItself = {
  name: "svc-program-as-itself",
  setup: (build) => {
    build.onLoad({ filter: /\.ts$/ }, (args) => ({
      loader: "ts",
      contents: readFileSync(args.path, "utf8").replaceAll(
        "import.meta.url",
        JSON.stringify(pathToFileURL(args.path).href)
      )
    }))
  }
}

/** svc-sdk (its sources) and the examples go into the bundle; every other package stays outside. */
const packagesOutside = {
  name: "svc-program-packages-outside",
  setup: (build) => {
    build.onResolve({ filter: /^[^./#]/ }, (args) =>
      /^svc-sdk(\/|$)/.test(args.path) ? undefined : { external: true }
    )
  }
}

/**
 * Bundles the program `source` (an absolute path) into `out` (a `.mjs` file under this repository,
 * where Node finds its node_modules).
 */
export const bundleProgram = async (source, out) => {
  mkdirSync(dirname(out), { recursive: true })
  // written aside, then moved in place in one step: demos started side by side each write it whole
  const aside = `${out}.${process.pid}`
  await build({
    entryPoints: [source],
    outfile: aside,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["svc-sdk-source"],
    logLevel: "error",
    banner: { js: `process.argv[1] = ${JSON.stringify(source)};` },
    plugins: [asItself, packagesOutside]
  })
  renameSync(aside, out)
}

/** Bundles the demo's `entry` (a path under examples/) into .cache/demo/; answers the bundle's path. */
export const bundleDemo = async (entry) => {
  const out = join(root, ".cache", "demo", entry.replace(/\.ts$/, ".mjs"))
  await bundleProgram(join(root, entry), out)
  return relative(root, out)
}
