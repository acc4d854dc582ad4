/**
 * What an install costs a user, beside ky: the packages and megabytes that
 * `npm install svc-sdk effect@^3.22 @effect/platform@^0.97` adds (from the packed tarball), and the
 * time and memory `node` takes to import the package (cold process, median of runs).
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

/** Package folders under `node_modules` (scoped and nested included) and their bytes on disk. */
const measureTree = (dir: string): { packages: number; bytes: number } => {
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
const importCost = (dir: string, specifier: string, runs: number) => {
  const script = `const t = performance.now(); await import(${JSON.stringify(specifier)});
    console.log(JSON.stringify({ ms: performance.now() - t, rss: process.memoryUsage().rss }))`
  writeFileSync(join(dir, "import.mjs"), script)
  const samples = Array.from(
    { length: runs },
    () =>
      JSON.parse(
        execFileSync(process.execPath, ["import.mjs"], { cwd: dir, encoding: "utf8" })
      ) as {
        ms: number
        rss: number
      }
  )
  return {
    ms: median(samples.map((sample) => sample.ms)),
    mb: median(samples.map((sample) => sample.rss)) / 2 ** 20
  }
}

export const run = async (options: BenchOptions): Promise<Section> => {
  const scratch = mkdtempSync(join(tmpdir(), "footprint-pack-"))
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", scratch], {
      cwd: root,
      encoding: "utf8"
    })
  ) as Array<{ filename: string }>
  const peers = [
    `effect@${versionOf("effect")}`,
    `@effect/platform@${versionOf("@effect/platform")}`
  ]
  const ours = install([join(scratch, packed[0]!.filename), ...peers])
  const peersOnly = install(peers)
  const ky = install([`ky@${versionOf("ky")}`])
  try {
    const runs = Math.max(5, options.runs)
    const [withUs, base, kyTree] = [measureTree(ours), measureTree(peersOnly), measureTree(ky)]
    const svcImport = importCost(ours, "svc-sdk/v3", runs)
    const kyImport = importCost(ky, "ky", runs)
    const figures: Array<Figure> = [
      { name: "svc-sdk + peers: packages", value: withUs.packages, unit: "packages" },
      {
        name: "svc-sdk + peers: on disk",
        value: withUs.bytes / 2 ** 20,
        unit: "MB",
        note: `${(base.bytes / 2 ** 20).toFixed(1)} MB of it effect and @effect/platform`
      },
      {
        name: "added beyond the peers",
        value: withUs.packages - base.packages,
        unit: "packages",
        note: "svc-sdk and undici"
      },
      { name: "ky: packages", value: kyTree.packages, unit: "packages" },
      { name: "ky: on disk", value: kyTree.bytes / 2 ** 20, unit: "MB" },
      {
        name: "import svc-sdk (cold node)",
        value: svcImport.ms,
        unit: "ms",
        ratios: [{ peer: "ky", ratio: svcImport.ms / kyImport.ms }]
      },
      { name: "RSS after import svc-sdk", value: svcImport.mb, unit: "MB" },
      { name: "import ky (cold node)", value: kyImport.ms, unit: "ms" },
      { name: "RSS after import ky", value: kyImport.mb, unit: "MB" }
    ]
    return {
      title: "Install footprint and import cost",
      method:
        `npm install of the packed tarball with its peers (effect, @effect/platform) into an empty project, ` +
        `beside the peers alone and ky alone; package folders counted under node_modules, bytes summed. ` +
        `Import: a fresh node process importing the entry point, median of ${runs}.`,
      figures,
      goals: [
        {
          text: "an install adds at most undici beyond effect and @effect/platform",
          met: withUs.packages - base.packages <= 2,
          detail: `${withUs.packages - base.packages} packages (svc-sdk included)`
        }
      ]
    }
  } finally {
    for (const dir of [scratch, ours, peersOnly, ky]) rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1]?.endsWith("footprint.ts")) {
  const section = await run({ runs: 5, seconds: 0 })
  for (const figure of section.figures) {
    console.log(`${figure.name.padEnd(32)} ${figure.value.toFixed(1)} ${figure.unit}`)
  }
}
