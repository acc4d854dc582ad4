/**
 * What the demo's tellings make of the streamed steps (`examples/streaming.ts`): the feed's check
 * catches a lost, repeated or misnumbered event; the answer's check a missing token or `done`;
 * the progress bar counts the chunks against the total and draws only on a terminal.
 */
import { describe, expect, it } from "vitest"
import {
  answered,
  chatRead,
  downloadProgress,
  everyEventOnce,
  feedRead,
  progressBar
} from "../../examples/streaming.js"

const update = (id: number, seq = id) => ({
  event: "update",
  id: String(id),
  data: JSON.stringify({ seq, text: `Update ${seq} of 3` })
})

describe("the live feed's row", () => {
  const check = everyEventOnce(3)

  it("passes events 1 to count, each once, in order", () => {
    const row = feedRead(200, [update(1), update(2), update(3)])
    expect(row).toEqual({
      success: true,
      status: 200,
      data: { events: 3, ids: "1 2 3", seqs: "1 2 3" }
    })
    expect(check(row)).toBeUndefined()
  })

  it.each([
    ["a lost event", [update(1), update(3)], "expected event ids 1 2 3, got 1 3"],
    ["a repeated one", [update(1), update(2), update(2), update(3)], "got 1 2 2 3"],
    ["one past the end", [update(1), update(2), update(3), update(4)], "got 1 2 3 4"],
    ["a seq that is not its id", [update(1), update(2, 7), update(3)], "got 1 7 3"]
  ])("fails %s", (_, events, reason) => {
    expect(check(feedRead(200, events))).toContain(reason)
  })
})

describe("the streamed answer's row", () => {
  const tokens = ["Two", " words"].map((token) => ({ event: "token", id: "", data: { token } }))
  const done = (counted: number) => ({
    event: "done",
    id: "",
    data: { token: "", finish: "stop", tokens: counted }
  })

  it("joins the tokens and reads the done event", () => {
    const row = chatRead(200, [...tokens, done(2)])
    expect(row.data).toEqual({ answer: "Two words", tokens: 2, finish: "stop", counted: 2 })
    expect(answered("Two words")(row)).toBeUndefined()
  })

  it("fails another answer, a missing done event, or a count that is not the tokens'", () => {
    expect(answered("Two words")(chatRead(200, [tokens[0]!, done(1)]))).toContain(
      'expected the answer "Two words", got "Two"'
    )
    expect(answered("Two words")(chatRead(200, tokens))).toContain("expected a done event")
    expect(answered("Two words")(chatRead(200, [...tokens, done(3)]))).toContain(
      "counting 2 tokens"
    )
  })
})

describe("the download's progress", () => {
  it("draws a bar of the bytes read against the total", () => {
    expect(progressBar({ loaded: 0, total: 2048, progress: 0 })).toBe(
      `[${"·".repeat(24)}]   0% 0 KiB of 2 KiB`
    )
    expect(progressBar({ loaded: 1024, total: 2048, progress: 0.5 })).toBe(
      `[${"#".repeat(12)}${"·".repeat(12)}]  50% 1 KiB of 2 KiB`
    )
    expect(progressBar({ loaded: 3072 })).toBe(`[${"?".repeat(24)}] 3 KiB`)
  })

  it("redraws on a terminal as the client reports progress, and clears the line when done", () => {
    const written: Array<string> = []
    const progress = downloadProgress({ isTTY: true, write: (text) => written.push(text) })
    progress.draw({ loaded: 1024, total: 4096, progress: 0.25 })
    progress.draw({ loaded: 4096, total: 4096, progress: 1 })
    expect(progress.done()).toEqual({
      bytes: 4096,
      bar: `[${"#".repeat(24)}] 100% 4 KiB of 4 KiB`
    })
    expect(written).toEqual([
      `\r  [${"#".repeat(6)}${"·".repeat(18)}]  25% 1 KiB of 4 KiB`,
      `\r  [${"#".repeat(24)}] 100% 4 KiB of 4 KiB`,
      "\r\x1b[2K"
    ])
  })

  it("draws nothing when the output is not a terminal, and takes onDownloadProgress's reports", () => {
    const written: Array<string> = []
    const progress = downloadProgress({ write: (text) => written.push(text) })
    progress.draw({ loaded: 10_240 })
    expect(progress.done()).toEqual({ bytes: 10_240, bar: `[${"?".repeat(24)}] 10 KiB` })
    expect(written).toEqual([])
  })
})
