/**
 * The shape every benchmark returns, so that `bench/run.ts` can print them and write BENCHMARKS.md.
 */
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"

/** One measured figure, e.g. `{ name: "facade", value: 9120, unit: "req/s" }`. */
export interface Figure {
  readonly name: string
  readonly value: number
  readonly unit: string
  /** Ratio to a named peer measured in the same run, e.g. `{ peer: "ky", ratio: 1.4 }`. */
  readonly ratios?: ReadonlyArray<{ readonly peer: string; readonly ratio: number }>
  readonly note?: string
}

/** A goal from an issue and whether this run met it. */
export interface Goal {
  readonly text: string
  readonly met: boolean
  readonly detail: string
}

export interface Section {
  readonly title: string
  /** How it was measured: tool, concurrency, duration, number of runs. */
  readonly method: string
  readonly figures: ReadonlyArray<Figure>
  readonly goals: ReadonlyArray<Goal>
}

export interface BenchOptions {
  /** Independent runs; figures are medians across them. */
  readonly runs: number
  /** Seconds per measurement. */
  readonly seconds: number
}

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * A measured ratio against its goal, to two decimals, or three where two would round it onto the
 * other side of the goal (0.897 against 0.9 reads 0.897, not 0.90).
 */
export const ratioText = (ratio: number, goal: number): string =>
  Number(ratio.toFixed(2)) >= goal === ratio >= goal ? ratio.toFixed(2) : ratio.toFixed(3)

/** The lower and upper quartile of `values`, as `a–b`: the spread of per-pair ratios. */
export const quartiles = (values: ReadonlyArray<number>): string => {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
  return `${at(0.25).toFixed(2)}–${at(0.75).toFixed(2)}`
}

/**
 * Runs a section when its file is the program (`npx tsx bench/query.ts -- --runs 5`), printing it
 * as JSON; does nothing when `bench/run.ts` imports it.
 */
export const runWhenMain = async (
  url: string,
  run: (options: BenchOptions) => Promise<Section>
): Promise<void> => {
  if (process.argv[1] === undefined || url !== pathToFileURL(process.argv[1]).href) return
  const { values } = parseArgs({
    options: { runs: { type: "string", default: "5" }, seconds: { type: "string", default: "1" } }
  })
  const section = await run({ runs: Number(values.runs), seconds: Number(values.seconds) })
  console.log(JSON.stringify(section, null, 2))
}
