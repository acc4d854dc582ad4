/**
 * `npm run bench`: runs every benchmark, prints each section and writes BENCHMARKS.md.
 *
 *   npm run bench                         # all sections, 3 runs each
 *   npm run bench -- --runs 5 --seconds 5
 *   npm run bench -- client query         # only some sections
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { cpus, totalmem } from "node:os"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import type { BenchOptions, Section } from "./report.js"

const sections: Record<
  string,
  () => Promise<{ run: (options: BenchOptions) => Promise<Section> }>
> = {
  client: () => import("./client.js"),
  spans: () => import("./tracing.js"),
  auth: () => import("./auth.js"),
  throttle: () => import("./throttle.js"),
  query: () => import("./query.js"),
  sse: () => import("./sse.js"),
  size: () => import("./size.js"),
  footprint: () => import("./footprint.js")
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: "string", default: "3" }, seconds: { type: "string", default: "3" } }
})
const options: BenchOptions = { runs: Number(values.runs), seconds: Number(values.seconds) }
const chosen = positionals.length > 0 ? positionals : Object.keys(sections)

const formatNumber = (value: number) =>
  value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(2)

const render = (section: Section): string => {
  const lines = [`## ${section.title}`, "", section.method, ""]
  lines.push("| what | value | ratios (same run) |", "|---|---:|---|")
  for (const figure of section.figures) {
    const ratios = (figure.ratios ?? []).map((r) => `${r.ratio.toFixed(2)}× ${r.peer}`).join(", ")
    const note = figure.note ? ` (${figure.note})` : ""
    lines.push(
      `| ${figure.name}${note} | ${formatNumber(figure.value)} ${figure.unit} | ${ratios} |`
    )
  }
  if (section.goals.length > 0) {
    lines.push("", "| goal | met | measured |", "|---|---|---|")
    for (const goal of section.goals) {
      lines.push(`| ${goal.text} | ${goal.met ? "yes" : "**no**"} | ${goal.detail} |`)
    }
  }
  return lines.join("\n")
}

/** A section on the Effect 4 line, on Node 24, in a child process (the client one with ky 2). */
const onNode24 = async (file: string): Promise<Section | undefined> => {
  const { nodeBinary, OTHER_VERSIONS, supported } = await import("../scripts/node-versions.mjs")
  const version = OTHER_VERSIONS.find((v: string) => v.startsWith("24."))
  if (!supported || version === undefined) return undefined
  const output = execFileSync(
    nodeBinary(version),
    [
      "--import",
      "tsx",
      "--import",
      fileURLToPath(new URL("../scripts/effect4-loader.mjs", import.meta.url)),
      fileURLToPath(new URL(file, import.meta.url)),
      "--line",
      "4",
      "--json",
      "--runs",
      String(options.runs),
      "--seconds",
      String(options.seconds)
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 16 * 1024 * 1024 }
  )
  return JSON.parse(output.trim().split("\n").pop() ?? "") as Section
}

const results: Array<Section> = []
for (const name of chosen) {
  const load = sections[name]
  if (!load)
    throw new TypeError(`Unknown benchmark "${name}": expected one of ${Object.keys(sections)}`)
  console.error(`running ${name} (${options.runs} runs)…`)
  const section = await (await load()).run(options)
  results.push(section)
  console.log(`${render(section)}\n`)
  if (name === "client" || name === "spans") {
    console.error(`running ${name} on the Effect 4 line, Node 24…`)
    const on24 = await onNode24(name === "client" ? "./client.ts" : "./tracing.ts")
    if (on24 !== undefined) {
      results.push(on24)
      console.log(`${render(on24)}\n`)
    }
  }
}

if (positionals.length === 0) {
  const cpu = cpus()
  const machine = `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`
  const report = [
    "# Benchmarks",
    "",
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}.`,
    "",
    `Machine: ${machine}. Figures are medians of ${options.runs} runs of ${options.seconds} s each;`,
    "ratios compare figures measured in the same run. A shared machine varies between runs: compare",
    "ratios rather than absolute numbers.",
    "",
    "## Every goal",
    "",
    "| section | goal | met | measured |",
    "|---|---|---|---|",
    ...results.flatMap((section) =>
      section.goals.map(
        (goal) =>
          `| ${section.title} | ${goal.text} | ${goal.met ? "yes" : "**no**"} | ${goal.detail} |`
      )
    ),
    "",
    ...results.map(render).flatMap((block) => [block, ""])
  ].join("\n")
  writeFileSync(new URL("../BENCHMARKS.md", import.meta.url), report)
  console.error("wrote BENCHMARKS.md")
}
