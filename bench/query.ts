/**
 * `toQueryString` speed: a typical query (three filters, search, page, limit, two sorts) built and
 * serialized by the query builder, by `qs.stringify` with the same bracket format, and by a
 * hand-written `URLSearchParams` build. All three produce strings that `URLSearchParams` reads the
 * same (checked before timing).
 *
 * Standalone: `npx tsx bench/query.ts [--runs 5] [--seconds 1]`.
 */
import qs from "qs"
import { gte, inOp, query } from "../src/Query/index.js"
import type { BenchOptions, Figure, Section } from "./report.js"
import { median, runWhenMain } from "./report.js"

/** The typical query, built as a user would. */
const typical = () =>
  query("/products")
    .where("status", "active")
    .where("age", gte(18))
    .where("role", inOp(["admin", "editor"]))
    .search("red shoes")
    .page(2)
    .limit(20)
    .sort("name")
    .sort("created_at", "desc")

const sdk = (): string => typical().toQueryString()

const prebuilt = typical()

const serializeOnly = (): string => prebuilt.toQueryString()

const qsOptions = { encodeValuesOnly: true, arrayFormat: "comma", format: "RFC3986" } as const
const withQs = (): string =>
  qs.stringify(
    {
      status: "active",
      age: { gte: 18 },
      role: { in: ["admin", "editor"] },
      search: "red shoes",
      page: 2,
      limit: 20,
      sort: ["name", "-created_at"]
    },
    qsOptions
  )

const withURLSearchParams = (): string => {
  const params = new URLSearchParams()
  params.append("status", "active")
  params.append("age[gte]", String(18))
  params.append("role[in]", ["admin", "editor"].join(","))
  params.append("search", "red shoes")
  params.append("page", String(2))
  params.append("limit", String(20))
  params.append("sort", ["name", "-created_at"].join(","))
  return params.toString()
}

const subjects = {
  "svc-sdk query().….toQueryString()": sdk,
  "qs.stringify": withQs,
  "URLSearchParams by hand": withURLSearchParams,
  "svc-sdk toQueryString() of a built query": serializeOnly
} as const
type Subject = keyof typeof subjects

/** Every subject must mean the same thing to a server reading it with URLSearchParams. */
const checkSameQuery = (): void => {
  const reference = JSON.stringify([...new URLSearchParams(sdk())])
  for (const [name, f] of Object.entries(subjects)) {
    const read = JSON.stringify([...new URLSearchParams(f())])
    if (read !== reference) throw new Error(`bench/query: ${name} builds ${f()}, not ${sdk()}`)
  }
}

let sink = 0

/** Operations per second of `f`, calling it for about `seconds`. */
const opsPerSecond = (f: () => string, seconds: number): number => {
  const deadline = performance.now() + seconds * 1000
  let ops = 0
  let now = performance.now()
  const start = now
  while (now < deadline) {
    for (let i = 0; i < 1000; i++) sink += f().length
    ops += 1000
    now = performance.now()
  }
  return (ops / (now - start)) * 1000
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100

export const run = async (options: BenchOptions): Promise<Section> => {
  checkSameQuery()
  const names = Object.keys(subjects) as Array<Subject>
  for (const name of names) opsPerSecond(subjects[name], Math.min(0.3, options.seconds))
  const samples = new Map<Subject, Array<number>>(names.map((n) => [n, []]))
  const vsQs: Array<number> = []
  const vsUsp: Array<number> = []
  for (let r = 0; r < options.runs; r++) {
    // rotate the order so that no subject always runs first
    const order = names.map((_, i) => names[(i + r) % names.length]!)
    const results = new Map<Subject, number>()
    for (const name of order) results.set(name, opsPerSecond(subjects[name], options.seconds))
    for (const [name, value] of results) samples.get(name)!.push(value)
    const ours = results.get("svc-sdk query().….toQueryString()")!
    vsQs.push(ours / results.get("qs.stringify")!)
    vsUsp.push(ours / results.get("URLSearchParams by hand")!)
  }
  const med = (name: Subject) => median(samples.get(name)!)
  const qsRatio = median(vsQs)
  const figures: Array<Figure> = [
    {
      name: "svc-sdk query().….toQueryString()",
      value: med("svc-sdk query().….toQueryString()"),
      unit: "ops/s",
      ratios: [
        { peer: "qs.stringify", ratio: ratio(qsRatio, 1) },
        { peer: "URLSearchParams", ratio: ratio(median(vsUsp), 1) }
      ],
      note: "builder construction included"
    },
    { name: "qs.stringify", value: med("qs.stringify"), unit: "ops/s" },
    { name: "URLSearchParams by hand", value: med("URLSearchParams by hand"), unit: "ops/s" },
    {
      name: "svc-sdk toQueryString() of a built query",
      value: med("svc-sdk toQueryString() of a built query"),
      unit: "ops/s",
      note: "serialize only: values are checked and encoded when given, so this is concatenation"
    }
  ]
  if (sink === -1) console.log(sink)
  return {
    title: "Query builder: toQueryString",
    method: `Node ${process.version}, one process, a typical query (3 filters, search, page, limit, 2 sorts); each subject called in a loop for ${options.seconds} s per run, ${options.runs} runs in rotating order; figures are medians of runs, ratios are medians of per-run ratios. qs with { encodeValuesOnly, arrayFormat: "comma", format: "RFC3986" }; all outputs read the same through URLSearchParams.`,
    figures,
    goals: [
      {
        text: "toQueryString ≥ 2× qs.stringify",
        met: qsRatio >= 2,
        detail: `${ratio(qsRatio, 1)}× (per run: ${vsQs.map((x) => ratio(x, 1)).join(", ")})`
      }
    ]
  }
}

await runWhenMain(import.meta.url, run)
