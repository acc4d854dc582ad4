/**
 * `npm run bench`: runs every benchmark, prints each section and writes BENCHMARKS.md.
 *
 *   npm run bench                         # all sections, 3 runs each
 *   npm run bench -- --runs 5 --seconds 5
 *   npm run bench -- client query         # only some sections: theirs replaced in BENCHMARKS.md
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { cpus, loadavg, totalmem } from "node:os"
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
  stream: () => import("./stream.js"),
  size: () => import("./size.js"),
  footprint: () => import("./footprint.js"),
  pretenuring: () => import("./pretenuring.js")
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

/** The sections that run again on the Effect 4 line, on Node 24: their files. */
const onEffect4: Record<string, string> = {
  client: "./client.ts",
  spans: "./tracing.ts",
  sse: "./sse.ts",
  stream: "./stream.ts"
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
  const file = onEffect4[name]
  if (file !== undefined) {
    console.error(`running ${name} on the Effect 4 line, Node 24…`)
    const on24 = await onNode24(file)
    if (on24 !== undefined) {
      results.push(on24)
      console.log(`${render(on24)}\n`)
    }
  }
}

const date = new Date().toISOString().slice(0, 10)
const reportUrl = new URL("../BENCHMARKS.md", import.meta.url)

/** The "Every goal" table's rows of rendered sections, read back from their own goal tables. */
const goalRows = (blocks: ReadonlyArray<string>): Array<string> =>
  blocks.flatMap((block) => {
    const title = block.split("\n", 1)[0]!.slice("## ".length)
    const lines = block.split("\n")
    const start = lines.indexOf("| goal | met | measured |")
    if (start === -1) return []
    return lines
      .slice(start + 2)
      .filter((line) => line.startsWith("| "))
      .map((line) => `| ${title} ${line}`)
  })

const GOALS_HEADER = [
  "## Every goal",
  "",
  "| section | goal | met | measured |",
  "|---|---|---|---|"
]

/**
 * A run of some sections: BENCHMARKS.md as it was, those sections' blocks replaced (or added), the
 * "Every goal" table read again from every block, and a line saying which were re-run alone, when.
 */
const merged = (previous: string): string => {
  const at = previous.indexOf("\n## Every goal\n")
  const header = previous
    .slice(0, at === -1 ? previous.length : at)
    .trimEnd()
    .split("\n")
  const blocks = previous
    .slice(at === -1 ? previous.length : at + 1)
    .split(/\n(?=## )/)
    .map((block) => block.trimEnd())
    .filter((block) => block.startsWith("## ") && !block.startsWith("## Every goal"))
  const titles = new Set(results.map((section) => section.title))
  for (const section of results) {
    const index = blocks.findIndex((block) => block.split("\n", 1)[0] === `## ${section.title}`)
    if (index === -1) blocks.push(render(section))
    else blocks[index] = render(section)
  }
  // the sections re-run alone: this run's line, and older ones without this run's sections
  const rerun = "Re-run alone on "
  const kept = header.flatMap((line) => {
    if (!line.startsWith(rerun)) return [line]
    // the titles hold ": " too: the list starts at the first one
    const at = line.indexOf(": ")
    const when = line.slice(0, at)
    const left = line
      .slice(at + 2)
      .replace(/\.$/, "")
      .split("; ")
      .filter((title) => title !== "" && !titles.has(title))
    return left.length === 0 ? [] : [`${when}: ${left.join("; ")}.`]
  })
  kept.push(
    "",
    `${rerun}${date}, ${options.runs} runs of ${options.seconds} s, on ${process.platform} (${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}) with load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(", ")}: ${[...titles].join("; ")}.`
  )
  const lines = kept.filter((line, i) => !(line === "" && kept[i - 1] === ""))
  return [
    ...lines,
    "",
    ...GOALS_HEADER,
    ...goalRows(blocks),
    "",
    ...blocks.flatMap((block) => [block, ""])
  ].join("\n")
}

if (positionals.length === 0) {
  const cpu = cpus()
  const machine = `${cpu.length} × ${cpu[0]?.model ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}/${process.arch}`
  const blocks = results.map(render)
  const report = [
    "# Benchmarks",
    "",
    `Written by \`npm run bench\` on ${date}.`,
    "",
    `Machine: ${machine}. Figures are medians of ${options.runs} runs of ${options.seconds} s each;`,
    "ratios compare figures measured in the same run. A shared machine varies between runs: compare",
    "ratios rather than absolute numbers.",
    "",
    ...GOALS_HEADER,
    ...goalRows(blocks),
    "",
    ...blocks.flatMap((block) => [block, ""])
  ].join("\n")
  writeFileSync(reportUrl, report)
  console.error("wrote BENCHMARKS.md")
} else if (existsSync(reportUrl)) {
  // some sections: theirs replaced in BENCHMARKS.md, the others kept as they were
  writeFileSync(reportUrl, merged(readFileSync(reportUrl, "utf8")))
  console.error(
    `updated ${[...new Set(results.map((s) => s.title))].length} sections of BENCHMARKS.md`
  )
}
