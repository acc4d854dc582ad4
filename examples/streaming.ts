/**
 * What the four tellings make of the streamed steps, written once (the tellings only read the
 * streams: `sse` and `stream`, on the Promise facade and the Effect API of either line): each
 * step's row (an `Outcome` like an `ApiResponse`'s, with what was read as `data`), the checks on
 * it, and the download's progress bar.
 */
import type { Outcome } from "./steps.js"

/** What a telling read of an event (`SseEvent` of `svc-sdk` and of `svc-sdk/v3` alike). */
interface Event<T> {
  readonly event: string
  readonly id: string
  readonly data: T
}

/** The row of a stream read to its end: `status` the response's (a 2xx: the stream ran). */
const rowOf = <D>(status: number, data: D) => ({ success: true as const, status, data })

/**
 * The live feed's row: how many events, their ids in order, and the feed's `seq` in each event's
 * data (the feed's JSON, `{"seq": n, ...}`), which must be its id.
 */
export const feedRead = (status: number, events: ReadonlyArray<Event<string>>) =>
  rowOf(status, {
    events: events.length,
    ids: events.map((event) => event.id).join(" "),
    seqs: events.map((event) => String((JSON.parse(event.data) as { seq?: unknown }).seq)).join(" ")
  })

/**
 * A check that a feed's events are `1` to `count`, each once and in order, so that none was lost
 * or repeated across the reconnect, and each event's `seq` is its id.
 */
export const everyEventOnce =
  (count: number) =>
  (response: Outcome): string | undefined => {
    const { ids, seqs } = (response.data ?? {}) as { ids?: string; seqs?: string }
    const expected = Array.from({ length: count }, (_, i) => i + 1).join(" ")
    if (ids !== expected) return `expected event ids ${expected}, got ${ids}`
    return seqs === ids ? undefined : `expected each event's seq to be its id, got ${seqs}`
  }

/** What a telling read of `/chat`'s events (`ChatChunk`, decoded by the `schema` option). */
interface Chunk {
  readonly token: string
  readonly finish?: string | undefined
  readonly tokens?: number | undefined
}

/**
 * The streamed answer's row: the tokens joined, how many came, and what the final `done` event
 * said (`finish`, and the number of tokens the server counted).
 */
export const chatRead = (status: number, events: ReadonlyArray<Event<Chunk>>) => {
  const tokens = events.filter((event) => event.event === "token").map((event) => event.data)
  const done = events.find((event) => event.event === "done")?.data
  return rowOf(status, {
    answer: tokens.map((chunk) => chunk.token).join(""),
    tokens: tokens.length,
    finish: done?.finish ?? null,
    counted: done?.tokens ?? null
  })
}

/** A check that the answer is `expected`, whole, and ended with `done` counting its tokens. */
export const answered =
  (expected: string) =>
  (response: Outcome): string | undefined => {
    const data = (response.data ?? {}) as {
      answer?: string
      tokens?: number
      finish?: string | null
      counted?: number | null
    }
    if (data.answer !== expected) {
      return `expected the answer ${JSON.stringify(expected)}, got ${JSON.stringify(data.answer)}`
    }
    if (data.finish !== "stop" || data.counted !== data.tokens) {
      return `expected a done event counting ${data.tokens} tokens, got ${JSON.stringify(data)}`
    }
    return undefined
  }

/** A download's progress, as `onDownloadProgress` reports it (SPEC 4.8, pinned). */
export interface DownloadProgress {
  readonly loaded: number
  readonly total?: number | undefined
  readonly progress?: number | undefined
}

const BAR_WIDTH = 24

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`

/** A progress bar as text: `[############············]  50% 256 KiB of 512 KiB`. */
export const progressBar = ({ loaded, total, progress }: DownloadProgress): string => {
  if (total === undefined || progress === undefined)
    return `[${"?".repeat(BAR_WIDTH)}] ${kib(loaded)}`
  const filled = Math.round(Math.min(1, Math.max(0, progress)) * BAR_WIDTH)
  const percent = `${Math.floor(progress * 100)}%`.padStart(4)
  return `[${"#".repeat(filled)}${"·".repeat(BAR_WIDTH - filled)}] ${percent} ${kib(loaded)} of ${kib(total)}`
}

/**
 * The download's progress bar, drawn from what the client reports: every telling passes
 * `onDownloadProgress: progress.draw` to its `stream` call (the client counts the bytes read and
 * takes `total` from the `Content-Length`). On a terminal it redraws the bar on one line, which
 * `done` clears; the row shows the last bar.
 */
export const downloadProgress = (
  out: { readonly isTTY?: boolean; write(text: string): unknown } = process.stdout
) => {
  let last: DownloadProgress = { loaded: 0 }
  return {
    /** Takes the client's report (`onDownloadProgress`) and redraws the bar. */
    draw: (progress: DownloadProgress) => {
      last = progress
      if (out.isTTY) out.write(`\r  ${progressBar(progress)}`)
    },
    /** Clears the bar's line; the row's data: the bytes read and the last bar. */
    done: () => {
      if (out.isTTY) out.write("\r\x1b[2K")
      return { bytes: last.loaded, bar: progressBar(last) }
    }
  }
}

/** The download's row: the bytes read and the bar they drew (`done`'s answer). */
export const downloadRead = (
  status: number,
  read: { readonly bytes: number; readonly bar: string }
) => rowOf(status, read)
