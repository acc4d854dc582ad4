/**
 * How the demo stories print and check their steps: one table row per request, with the
 * `ApiResponse` it gave. Every step says what it expects; the first mismatch stops the story with
 * a `StepFailed` naming the step.
 *
 * Shared by both Effect lines' stories (`examples/` on Effect 4, `examples/v3/` on Effect 3): it
 * reads responses by their shape, the `ApiResponse` of `svc-sdk` and of `svc-sdk/v3` alike, and
 * uses only what both Effects spell the same (`Data`).
 */
import * as Data from "effect/Data"

/** What a step reads of an `ApiResponse` (the same type in `svc-sdk` and `svc-sdk/v3`). */
export interface Outcome {
  readonly success: boolean
  readonly status: number
  readonly data?: unknown
  readonly error?: string | undefined
  readonly message?: string | undefined
  readonly code?: string | undefined
  readonly meta?:
    | {
        readonly page?: number | undefined
        readonly total?: number | undefined
        readonly totalPages?: number | undefined
      }
    | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** A step of a story: its name, what it requests and what it must answer. */
export interface Step {
  readonly name: string
  /** What the table shows in the `request` column. */
  readonly request: string
  readonly status: number
  /**
   * The failure's code. A success never has one.
   * @default "HTTP_ERROR" when `status` is not 2xx
   */
  readonly code?: string
  /** Further checks on the response: a description of what is wrong, or `undefined`. */
  readonly check?: (response: Outcome) => string | undefined
}

export class StepFailed extends Data.TaggedError("StepFailed")<{
  readonly step: number
  readonly name: string
  readonly reason: string
}> {
  override get message(): string {
    return `Step ${this.step} "${this.name}" went wrong: ${this.reason}`
  }
}

/** Session ids are secrets: only their first characters are ever printed. */
export const mask = (id: string): string => `${id.slice(0, 6)}…`

const clip = (text: string, width: number) =>
  text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width)

/** Each step is one row, with what came back on the line below it. */
const COLUMNS = [
  ["#", 3],
  ["step", 32],
  ["status", 6],
  ["result", 19],
  ["code", 11],
  ["request", 0]
] as const

const DATA_WIDTH = 110

const row = (cells: ReadonlyArray<string>) =>
  cells
    .map((cell, i) => {
      const width = COLUMNS[i]?.[1] ?? 0
      return width === 0 ? cell : clip(cell, width)
    })
    .join(" ")
    .trimEnd()

/**
 * What names an item of a list: its `name`, or for a device (its handle is random, and the two
 * tellings print the same table) whether it is the one asking.
 */
const names = (items: ReadonlyArray<unknown>) =>
  items.map((item) => {
    if (typeof item !== "object" || item === null) return "?"
    if ("name" in item) return String(item.name)
    if ("current" in item) return item.current === true ? "this device" : "another device"
    return "?"
  })

/** Ids and tokens in plain text are masked; a `Redacted` one already prints as `<redacted>`. */
const hideSessionIds = (key: string, value: unknown) =>
  (key === "session_id" || key === "refresh_token") &&
  typeof value === "string" &&
  value !== "<redacted>"
    ? mask(value)
    : value

/** A short, secret-free rendering of what came back. */
const summary = (response: Outcome): string => {
  if (!response.success) return `error: ${response.error ?? ""}`
  const { data, meta, message } = response
  const paging =
    meta === undefined ? "" : ` · page ${meta.page}/${meta.totalPages}, ${meta.total} found`
  const said = message === undefined ? "" : `"${message}" · `
  if (Array.isArray(data)) return `${said}data: [${names(data).join(", ")}]${paging}`
  if (data === undefined || data === null) return said.slice(0, -3) || "(no data)"
  return `${said}data: ${JSON.stringify(data, hideSessionIds)}`
}

/** Query strings are shown decoded: `price[lte]=50` rather than `price%5Blte%5D=50`. */
const readable = (request: string) => {
  try {
    return decodeURIComponent(request)
  } catch {
    return request
  }
}

const mismatch = (response: Outcome, expected: Step): string | undefined => {
  const got = `got ${response.status}${response.code ? ` ${response.code}` : ""}`
  if (response.status !== expected.status) return `expected status ${expected.status}, ${got}`
  if (response.success !== (expected.status >= 200 && expected.status < 300)) {
    return `expected success ${!response.success}, got ${response.success}`
  }
  const code = expected.code ?? (response.success ? undefined : "HTTP_ERROR")
  if (response.code !== code) return `expected code ${code ?? "none"}, ${got}`
  return expected.check?.(response)
}

/** A check that the response's `data` holds `expected` under `key`. */
export const dataHas =
  (key: string, expected: unknown) =>
  (response: Outcome): string | undefined => {
    const data = response.data as Record<string, unknown> | undefined
    return data?.[key] === expected
      ? undefined
      : `expected data.${key} = ${JSON.stringify(expected)}, got ${JSON.stringify(data?.[key])}`
  }

/** A check that the failure's `error` is exactly `expected`. */
export const errorIs =
  (expected: string) =>
  (response: Outcome): string | undefined =>
    response.error === expected
      ? undefined
      : `expected error ${JSON.stringify(expected)}, got ${JSON.stringify(response.error)}`

/**
 * Headers of a request a browser makes by itself with a cookie session: from a page on another site
 * (`crossSite`), or from the app's own page.
 */
export const cookieRequest = (sessionId: string, crossSite: boolean) => ({
  Cookie: `session_id=${sessionId}`,
  ...(crossSite
    ? { Origin: "http://evil.example", "Sec-Fetch-Site": "cross-site" }
    : { "Sec-Fetch-Site": "same-origin" })
})

/** A check on the number of products found. */
export const totalIs =
  (total: number) =>
  (response: Outcome): string | undefined =>
    response.meta?.total === total
      ? undefined
      : `expected ${total} products, got ${response.meta?.total}`

/**
 * A step's result column: most steps expect a refusal (a guard saying no, a timeout), and those read
 * as such, not as failures; only a step that got something else is marked `UNEXPECTED`.
 */
const resultOf = (response: Outcome, mismatched: string | undefined) => {
  if (mismatched !== undefined) return "UNEXPECTED"
  if (response.success) return "ok"
  return response.code === "HTTP_ERROR" ? "refused as expected" : "failed as expected"
}

/** A titled table whose `step` prints one row and throws `StepFailed` on a mismatch. */
export const makeStory = (title: string) => {
  let count = 0
  console.log(`\n${title}\n`)
  console.log(row(COLUMNS.map(([name]) => name)))
  console.log(row(COLUMNS.map(([, width]) => "-".repeat(width || 60))))
  return {
    /** Prints the step's row; `request` replaces the step's own (a URL the code built, say). */
    step: <R extends Outcome>(expected: Step, response: R, request = expected.request): R => {
      const { name } = expected
      const n = ++count
      const status = String(response.status)
      const reason = mismatch(response, expected)
      const result = resultOf(response, reason)
      console.log(row([String(n), name, status, result, response.code ?? "", readable(request)]))
      console.log(`    ${clip(summary(response), DATA_WIDTH).trimEnd()}`)
      if (reason !== undefined) throw new StepFailed({ step: n, name, reason })
      return response
    }
  }
}

/**
 * What the Promise facade would have answered for a failure of the Effect API: an `SvcError` of
 * either line (`status` is the response's, on the errors that came with one, else `0`).
 */
export const asApiResponse = <Code extends string>(error: {
  readonly message: string
  readonly code: Code
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}) => ({
  success: false as const,
  status: error.status ?? 0,
  error: error.message,
  code: error.code,
  ...(error.headers === undefined ? {} : { headers: error.headers })
})
