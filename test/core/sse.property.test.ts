/**
 * Properties of the server-sent events parser (src/core/sse.ts): however a body is split into
 * chunks (inside a multi-byte character or a sequence that is not UTF-8, between CR and LF, inside
 * a BOM), it yields what the body parsed whole yields; and the whole body yields what a line-by-line reading of the HTML standard's
 * steps yields.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makeSseParser, type SseEvent } from "../../src/core/sse.js"

interface Outcome {
  readonly events: ReadonlyArray<SseEvent<string>>
  readonly comments: ReadonlyArray<string>
  readonly lastEventId: string
  readonly retry: number | undefined
}

/** Parses `chunks` as one body. */
const parse = (chunks: ReadonlyArray<Uint8Array>, lastEventId = ""): Outcome => {
  const events: Array<SseEvent<string>> = []
  const comments: Array<string> = []
  const parser = makeSseParser({
    onEvent: (event) => events.push(event),
    onComment: (comment) => comments.push(comment),
    lastEventId
  })
  for (const chunk of chunks) parser.push(chunk)
  parser.end()
  return { events, comments, lastEventId: parser.lastEventId, retry: parser.retry }
}

/**
 * The standard's steps, read as plainly as they are written: decode the whole body, split it into
 * lines, and process each line; the text after the last line end is dropped.
 */
const reference = (bytes: Uint8Array, initialId = ""): Outcome => {
  const text = new TextDecoder().decode(bytes)
  const lines = text.split(/\r\n|\r|\n/)
  lines.pop()
  const events: Array<SseEvent<string>> = []
  const comments: Array<string> = []
  let lastEventId = initialId
  let idBuffer = initialId
  let data = ""
  let eventType = ""
  let retry: number | undefined
  let blockRetry: number | undefined
  for (const line of lines) {
    if (line === "") {
      lastEventId = idBuffer
      if (data !== "") {
        const event = { event: eventType || "message", data: data.slice(0, -1), id: lastEventId }
        events.push(blockRetry === undefined ? event : { ...event, retry: blockRetry })
      }
      data = ""
      eventType = ""
      blockRetry = undefined
      continue
    }
    if (line.startsWith(":")) {
      comments.push(line.slice(1).replace(/^ /, ""))
      continue
    }
    const colon = line.indexOf(":")
    const field = colon === -1 ? line : line.slice(0, colon)
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "")
    if (field === "event") eventType = value
    else if (field === "data") data += `${value}\n`
    else if (field === "id" && !value.includes("\0")) idBuffer = value
    else if (field === "retry" && /^[0-9]+$/.test(value) && Number.isSafeInteger(Number(value))) {
      retry = Number(value)
      blockRetry = retry
    }
  }
  return { events, comments, lastEventId, retry }
}

const encoder = new TextEncoder()

/** Text with what is hard to split: multi-byte characters, a BOM, NUL, colons and spaces. */
const fieldText = fc
  .array(fc.constantFrom("a", "Z", "0", "7", " ", ":", "é", "€", "😀", "\uFEFF", "\0", "\t", "x"), {
    maxLength: 8
  })
  .map((parts) => parts.join(""))

/** One line of a body, without its end. */
const line = fc.oneof(
  { weight: 5, arbitrary: fieldText.map((value) => `data:${value}`) },
  { weight: 3, arbitrary: fieldText.map((value) => `data: ${value}`) },
  { weight: 1, arbitrary: fc.constant("data") },
  { weight: 2, arbitrary: fieldText.map((value) => `event: ${value}`) },
  { weight: 2, arbitrary: fieldText.map((value) => `id: ${value}`) },
  { weight: 1, arbitrary: fc.constant("id") },
  {
    weight: 2,
    arbitrary: fc.oneof(fc.nat({ max: 100000 }).map(String), fieldText).map((v) => `retry: ${v}`)
  },
  { weight: 2, arbitrary: fieldText.map((value) => `:${value}`) },
  { weight: 1, arbitrary: fieldText },
  { weight: 5, arbitrary: fc.constant("") }
)

/** Bytes that are not UTF-8, or only the start of a character: each decodes to U+FFFD. */
const invalid = fc.constantFrom(
  [0xff],
  [0xc3],
  [0xe2, 0x80],
  [0xf0, 0x9f, 0x98],
  [0xf0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0x80]
)

/**
 * A whole body: lines with mixed line ends, maybe a BOM first, maybe an unterminated tail, and
 * now and then bytes that are not UTF-8 in a line.
 */
const body = fc
  .record({
    bom: fc.constantFrom("", "\uFEFF", "\uFEFF\uFEFF"),
    lines: fc.array(
      fc.tuple(line, fc.constantFrom("\n", "\r", "\r\n"), fc.option(invalid, { freq: 8 })),
      { maxLength: 40 }
    ),
    tail: fc.oneof(fc.constant(""), line)
  })
  .map(({ bom, lines, tail }) => {
    const bytes: Array<number> = [...encoder.encode(bom)]
    for (const [text, end, raw] of lines) {
      bytes.push(...encoder.encode(text), ...(raw ?? []), ...encoder.encode(end))
    }
    bytes.push(...encoder.encode(tail))
    return new Uint8Array(bytes)
  })

/** `bytes` split at `cuts` (positions in any order, repeats allowed: an empty chunk). */
const split = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  const at = [...cuts.map((cut) => cut % (bytes.length + 1))].sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let start = 0
  for (const cut of at) {
    chunks.push(bytes.subarray(start, cut))
    start = cut
  }
  chunks.push(bytes.subarray(start))
  return chunks
}

describe("makeSseParser properties", () => {
  it("yields, whole, what the standard's steps read line by line yield", () => {
    fc.assert(
      fc.property(body, fc.constantFrom("", "start"), (bytes, initial) => {
        expect(parse([bytes], initial)).toEqual(reference(bytes, initial))
      }),
      { numRuns: 500 }
    )
  })

  it("yields the same for any split into chunks", () => {
    fc.assert(
      fc.property(body, fc.array(fc.nat(), { maxLength: 30 }), (bytes, cuts) => {
        expect(parse(split(bytes, cuts))).toEqual(parse([bytes]))
      }),
      { numRuns: 500 }
    )
  })

  it("yields the same with every byte a chunk of its own (every boundary at once)", () => {
    fc.assert(
      fc.property(body, (bytes) => {
        const bytewise = Array.from(bytes, (byte) => new Uint8Array([byte]))
        expect(parse(bytewise)).toEqual(parse([bytes]))
      }),
      { numRuns: 200 }
    )
  })

  it("splits between CR and LF and inside characters are among those tried", () => {
    // the bodies the properties draw do hold both cases
    const samples = fc.sample(body, { numRuns: 200, seed: 1 })
    const crlf = samples.some((bytes) => bytes.some((b, i) => b === 13 && bytes[i + 1] === 10))
    const multiByte = samples.some((bytes) => bytes.some((b) => b >= 0xf0))
    const notUtf8 = samples.some((bytes) => bytes.includes(0xff))
    expect([crlf, multiByte, notUtf8]).toEqual([true, true, true])
  })
})
