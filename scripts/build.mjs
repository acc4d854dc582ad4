// Builds dist/esm (ES modules, .js) and dist/cjs (CommonJS, .cjs), each with declaration files,
// and dist/node (Node's ES modules, bundled: see below).
// The Effect 3 line (src/v3) compiles against the root install's effect; the Effect 4 line (the root
// entries) against the Effect 4 toolchain's (tsconfig.build.v4*.json), each with the shared core.
// CommonJS files get their own extensions (.cjs, .d.cts) rather than a nested package.json, so
// that the root package.json (its `exports` and `#transport` import map) governs both formats.
import { spawn } from "node:child_process"
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { basename, dirname, join, relative } from "node:path"
import { build } from "esbuild"
import { ensureEffect4Toolchain } from "./effect4-toolchain.mjs"

const tsc = (project) =>
  new Promise((done, fail) =>
    spawn("npx", ["tsc", "-p", project], { stdio: "inherit" }).on("exit", (code) =>
      code === 0 ? done() : fail(new Error(`tsc -p ${project} exited with ${code}`))
    )
  )

ensureEffect4Toolchain()
rmSync("dist", { recursive: true, force: true })
// a line's two formats at once (each has its own folder); the Effect 4 line after the Effect 3
// line, whose shared modules (src/core, src/common, …) it writes again, as it always has
await Promise.all([tsc("tsconfig.build.json"), tsc("tsconfig.build.cjs.json")])
await Promise.all([tsc("tsconfig.build.v4.json"), tsc("tsconfig.build.v4.cjs.json")])

const renames = [
  [".d.ts.map", ".d.cts.map"],
  [".d.ts", ".d.cts"],
  [".js.map", ".cjs.map"],
  [".js", ".cjs"]
]
// Relative specifiers ending in .js, in require(), import(), from "…", import "…" and source map
// comments.
const relativeJs = /((?:require\(|import\(|from\s+|import\s+)["']\.{1,2}\/[^"']*?)\.js(["'])/g
const mapComment = /(\/\/# sourceMappingURL=[^\s]*?)\.(d\.ts|js)\.map/g
const mapFile = /("file":\s*"[^"]*?)\.(d\.ts|js)"/

const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      walk(path)
      continue
    }
    const rename = renames.find(([from]) => entry.name.endsWith(from))
    if (rename === undefined) continue
    const [from, to] = rename
    let text = readFileSync(path, "utf8")
      .replace(relativeJs, "$1.cjs$2")
      .replace(mapComment, (_, head, kind) => `${head}.${kind === "js" ? "cjs" : "d.cts"}.map`)
    if (from.endsWith(".map")) {
      text = text.replace(mapFile, (_, head, kind) => `${head}.${kind === "js" ? "cjs" : "d.cts"}"`)
    }
    writeFileSync(path, text)
    renameSync(path, path.slice(0, -from.length) + to)
  }
}
walk("dist/cjs")

// Effect 4 is ES modules only: under `moduleResolution` node16, TypeScript refuses a CommonJS
// declaration file's plain import of it (it would be a require of an ES module). The Effect 4
// line's .d.cts (all but dist/cjs/v3, whose Effect 3 is also CommonJS) read effect's types as an
// ES module's instead: type-only imports with `resolution-mode: "import"` (TypeScript ≥ 5.3).
const esmEffect = /"(effect(?:\/[^"]*)?)"/
const asImport = (line) =>
  line
    .replace(
      /^import (?:type )?(\* as \w+|\{[^}]*\}) from "(effect(?:\/[^"]*)?)";$/,
      (_, what, from) =>
        `import type ${what.replace(/\btype /g, "")} from "${from}" with { "resolution-mode": "import" };`
    )
    .replace(
      /import\("(effect(?:\/[^"]*)?)"\)/g,
      `import("$1", { with: { "resolution-mode": "import" } })`
    )
const effect4Declarations = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (path !== join("dist", "cjs", "v3")) effect4Declarations(path)
    } else if (entry.name.endsWith(".d.cts")) {
      const text = readFileSync(path, "utf8")
      if (esmEffect.test(text)) writeFileSync(path, text.split("\n").map(asImport).join("\n"))
    }
  }
}
effect4Declarations("dist/cjs")

// Node's ES modules: the `node` condition of the package's `exports` and `imports` points at
// dist/node, where esbuild bundles tsc's dist/esm into those entry points and the chunks they
// share. Node then loads a handful of files instead of each module of ours (an import of svc-sdk
// costs about 25 ms less on Node 24). Bundlers for the browser keep dist/esm, one file per module,
// which they tree-shake best. effect, undici, the other peers and the `#imports` stay imports.
const manifest = JSON.parse(readFileSync("package.json", "utf8"))
const nodeTargets = (value) =>
  typeof value === "string"
    ? []
    : Object.entries(value).flatMap(([condition, inner]) =>
        condition === "node" && typeof inner.import === "string"
          ? [inner.import]
          : nodeTargets(inner)
      )
const entries = [...Object.values(manifest.exports), ...Object.values(manifest.imports)]
  .flatMap(nodeTargets)
  .map((path) => path.replace("./dist/node/", "./dist/esm/"))
for (const path of entries) {
  if (!existsSync(path)) throw new Error(`package.json names ${path}, which tsc did not build`)
}
// The entry points of each line: on Node's ES modules every static import resolves before any code
// runs, so with the other Effect installed `import "svc-sdk"` (or "svc-sdk/v3") would fail on a
// module that Effect lacks (ERR_PACKAGE_PATH_NOT_EXPORTED: './References', ERR_MODULE_NOT_FOUND:
// effect/ConfigError) before its first import (internal/effect4.ts, v3/internal/effect3.ts) could
// say what is wrong. Each is built as `<entry>.line.js` behind a small `<entry>.js` that imports
// its guard (only effect/Context, which both Effects have) and then, awaited, the line itself,
// re-exporting its names.
const GUARDED = {
  "./dist/esm/index.js": "./dist/esm/internal/effect4.js",
  "./dist/esm/Client/index.js": "./dist/esm/internal/effect4.js",
  "./dist/esm/Auth/index.js": "./dist/esm/internal/effect4.js",
  "./dist/esm/v3/index.js": "./dist/esm/v3/internal/effect3.js",
  "./dist/esm/v3/Client/index.js": "./dist/esm/v3/internal/effect3.js",
  "./dist/esm/v3/Auth/index.js": "./dist/esm/v3/internal/effect3.js"
}
const GUARDS = [...new Set(Object.values(GUARDED))]
const outOf = (path) => path.replace("./dist/esm/", "").replace(/\.js$/, "")
const { metafile } = await build({
  entryPoints: [...new Set([...entries, ...GUARDS])].map((path) => ({
    in: path,
    out: path in GUARDED ? `${outOf(path)}.line` : outOf(path)
  })),
  metafile: true,
  outbase: "dist/esm",
  outdir: "dist/node",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: [
    "effect",
    "effect/*",
    "@effect/*",
    "undici",
    "ioredis",
    "@react-native-async-storage/*",
    "#*"
  ],
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
  // the Effect 3 entries' own import of their guard is left out here, as in a browser bundle
  // (package.json lists v3/internal/effect3 as a side effect for dist/node and dist/cjs only):
  // the wrapper below imports it first
  logOverride: { "ignored-bare-import": "silent" }
})
for (const [path, guardOf] of Object.entries(GUARDED)) {
  const entry = `dist/node/${outOf(path)}`
  const names = metafile.outputs[`${entry}.line.js`].exports
  const guard = relative(dirname(entry), `dist/node/${outOf(guardOf)}.js`)
  writeFileSync(
    `${entry}.js`,
    [
      `import "${guard.startsWith(".") ? guard : `./${guard}`}"`,
      `const line = await import("./${basename(entry)}.line.js")`,
      `export const { ${names.join(", ")} } = line`,
      ""
    ].join("\n")
  )
}
