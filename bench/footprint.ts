/**
 * What an install costs a user, beside ky, on each Effect line: the packages and megabytes that
 * `npm install svc-sdk` (Effect 4, the peer npm picks) and
 * `npm install svc-sdk effect@^3.22 @effect/platform@^0.97` (Effect 3) add, from the packed tarball,
 * and the time and memory `node` takes to import each line's entries (cold process, median of runs):
 * the Effect 4 line on Node 24, the Effect 3 line on this Node.
 *
 *   npx tsx bench/footprint.ts
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { type BenchOptions, type Figure, median, type Section } from "./report.js"

const root = resolve(import.meta.dirname, "..")
const versionOf = (name: string) =>
  JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8"))
    .version as string

/** The version of a package in the Effect 4 toolchain. */
const versionOf4 = (name: string) =>
  JSON.parse(
    readFileSync(join(root, "toolchains", "effect4", "node_modules", name, "package.json"), "utf8")
  ).version as string

interface Tree {
  readonly packages: number
  readonly bytes: number
}

/** Package folders under `node_modules` (scoped and nested included) and their bytes on disk. */
const measureTree = (dir: string): Tree => {
  let packages = 0
  let bytes = 0
  const walk = (path: string, inModules: boolean) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name)
      if (entry.isSymbolicLink()) continue
      if (entry.isDirectory()) {
        const isPackage = inModules && !entry.name.startsWith("@") && !entry.name.startsWith(".")
        if (isPackage) packages++
        walk(full, entry.name === "node_modules" || (inModules && entry.name.startsWith("@")))
      } else {
        bytes += statSync(full).size
      }
    }
  }
  walk(join(dir, "node_modules"), true)
  return { packages, bytes }
}

const install = (specs: ReadonlyArray<string>) => {
  const dir = mkdtempSync(join(tmpdir(), "footprint-"))
  writeFileSync(join(dir, "package.json"), '{"name":"footprint","private":true,"type":"module"}')
  execFileSync(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...specs],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] }
  )
  return dir
}

/** A cold `node` importing `specifier`: milliseconds to import, and resident memory after. */
const importCost = (dir: string, specifier: string, runs: number, node = process.execPath) => {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)});
    console.log(JSON.stringify({ ms: performance.now() - t, rss: process.memoryUsage().rss }))`
  writeFileSync(join(dir, "import.mjs"), script)
  const samples = Array.from(
    { length: runs },
    () =>
      JSON.parse(execFileSync(node, ["import.mjs"], { cwd: dir, encoding: "utf8" })) as {
        ms: number
        rss: number
      }
  )
  return {
    ms: median(samples.map((sample) => sample.ms)),
    mb: median(samples.map((sample) => sample.rss)) / 2 ** 20
  }
}

/** Import goals on the Effect 4 line, in milliseconds on Node 24. */
const IMPORT_GOALS = { client: 70, auth: 150 }

export const run = async (options: BenchOptions): Promise<Section> => {
  const scratch = mkdtempSync(join(tmpdir(), "footprint-pack-"))
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], {
      cwd: root,
      encoding: "utf8"
    })
  ) as Array<{ filename: string }>
  const tarball = join(scratch, packed[0]!.filename)
  const v3Peers = [
    `effect@${versionOf("effect")}`,
    `@effect/platform@${versionOf("@effect/platform")}`
  ]
  // a plain install: npm picks the peer, Effect 4
  const ours = install([tarball])
  const effect4Only = install([`effect@${versionOf4("effect")}`])
  const oursV3 = install([tarball, ...v3Peers])
  const v3PeersOnly = install(v3Peers)
  const ky = install([`ky@${versionOf("ky")}`])
  try {
    const runs = Math.max(5, options.runs)
    const [withUs, base, withUsV3, baseV3, kyTree] = [
      ours,
      effect4Only,
      oursV3,
      v3PeersOnly,
      ky
    ].map(measureTree) as [Tree, Tree, Tree, Tree, Tree]
    const { nodeBinary, OTHER_VERSIONS } = await import("../scripts/node-versions.mjs")
    const node24 = nodeBinary(OTHER_VERSIONS.find((v: string) => v.startsWith("24."))!)
    const effect4Version = JSON.parse(
      readFileSync(join(ours, "node_modules", "effect", "package.json"), "utf8")
    ).version as string
    const svcImport = importCost(ours, "svc-sdk", runs, node24)
    const authImport = importCost(ours, "svc-sdk/Auth", runs, node24)
    const effectImport = importCost(ours, "effect/Effect", runs, node24)
    const kyImport = importCost(ky, "ky", runs, node24)
    const v3Import = importCost(oursV3, "svc-sdk/v3", runs)
    const v3AuthImport = importCost(oursV3, "svc-sdk/v3/Auth", runs)
    const mb = (bytes: number) => bytes / 2 ** 20
    const figures: Array<Figure> = [
      {
        name: "npm install svc-sdk: packages",
        value: withUs.packages,
        unit: "packages",
        note: `npm picked effect ${effect4Version}`
      },
      {
        name: "npm install svc-sdk: on disk",
        value: mb(withUs.bytes),
        unit: "MB",
        note: `${mb(base.bytes).toFixed(1)} MB of it effect`
      },
      {
        name: "Effect 3 install: packages",
        value: withUsV3.packages,
        unit: "packages",
        note: "svc-sdk effect@3 @effect/platform"
      },
      {
        name: "Effect 3 install: on disk",
        value: mb(withUsV3.bytes),
        unit: "MB",
        note: `${mb(baseV3.bytes).toFixed(1)} MB of it effect and @effect/platform`
      },
      { name: "ky: packages", value: kyTree.packages, unit: "packages" },
      { name: "ky: on disk", value: mb(kyTree.bytes), unit: "MB" },
      {
        name: "import svc-sdk (Effect 4, Node 24, cold)",
        value: svcImport.ms,
        unit: "ms",
        ratios: [
          { peer: "effect/Effect alone", ratio: svcImport.ms / effectImport.ms },
          { peer: "ky", ratio: svcImport.ms / kyImport.ms }
        ]
      },
      { name: "RSS after import svc-sdk", value: svcImport.mb, unit: "MB" },
      { name: "import svc-sdk/Auth (Effect 4, Node 24, cold)", value: authImport.ms, unit: "ms" },
      { name: "import effect/Effect (Node 24, cold)", value: effectImport.ms, unit: "ms" },
      { name: "import ky (Node 24, cold)", value: kyImport.ms, unit: "ms" },
      {
        name: `import svc-sdk/v3 (Effect 3, Node ${process.versions.node}, cold)`,
        value: v3Import.ms,
        unit: "ms"
      },
      {
        name: `import svc-sdk/v3/Auth (Effect 3, Node ${process.versions.node}, cold)`,
        value: v3AuthImport.ms,
        unit: "ms"
      }
    ]
    return {
      title: "Install footprint and import cost",
      method:
        `npm install of the packed tarball into an empty project: alone (npm picks the effect peer: Effect 4), ` +
        `and with effect@3 and @effect/platform (Effect 3); beside the peers alone and ky alone; package folders counted under node_modules, bytes summed. ` +
        `Import: a fresh node process importing the entry point (Effect 4 entries on Node 24, Effect 3 entries on Node ${process.versions.node}), median of ${runs}.`,
      figures,
      goals: [
        {
          text: "a plain install picks Effect 4 and adds at most undici beyond effect",
          met: effect4Version.startsWith("4.") && withUs.packages - base.packages <= 2,
          detail: `effect ${effect4Version}, ${withUs.packages - base.packages} packages added (svc-sdk included)`
        },
        {
          text: "an Effect 3 install adds at most undici beyond effect and @effect/platform",
          met: withUsV3.packages - baseV3.packages <= 2,
          detail: `${withUsV3.packages - baseV3.packages} packages (svc-sdk included)`
        },
        {
          text: `import("svc-sdk") at most ${IMPORT_GOALS.client} ms on Node 24`,
          met: svcImport.ms <= IMPORT_GOALS.client,
          detail: `${svcImport.ms.toFixed(1)} ms (effect/Effect alone: ${effectImport.ms.toFixed(1)} ms)`
        },
        {
          text: `import("svc-sdk/Auth") at most ${IMPORT_GOALS.auth} ms on Node 24`,
          met: authImport.ms <= IMPORT_GOALS.auth,
          detail: `${authImport.ms.toFixed(1)} ms`
        }
      ]
    }
  } finally {
    for (const dir of [scratch, ours, effect4Only, oursV3, v3PeersOnly, ky])
      rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1]?.endsWith("footprint.ts")) {
  const section = await run({ runs: 5, seconds: 0 })
  for (const figure of section.figures) {
    console.log(`${figure.name.padEnd(32)} ${figure.value.toFixed(1)} ${figure.unit}`)
  }
}
