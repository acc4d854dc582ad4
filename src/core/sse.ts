/**
 * Server-sent events, for both Effect lines: the HTML standard's event stream interpretation
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
 * fed the body's bytes as they arrive.
 *
 * Each chunk is decoded once (UTF-8) and scanned once: the scan resumes where it stopped, a line
 * split over chunks is kept as the pieces that arrived (never scanned again) and joined when its
 * end arrives, and field values are slices of the decoded text. Decoding a chunk whole and
 * scanning the text with `indexOf` measured 2–3× faster than scanning the bytes for line ends and
 * decoding each value.
 */

import type { ApiResponse } from "./ApiResponse.js"

/**
 * One event of a stream (SPEC 4.8, pinned).
 *
 * - `event`: the block's `event` field, `"message"` when it named none (or an empty one);
 * - `data`: the block's `data` lines joined with `\n` (or what a schema decoded from it);
 * - `id`: the stream's last event id at this event, `""` when none was set;
 * - `retry`: present when the event's block carried a valid `retry` field, with its value (ms).
 *
 * @since 0.1.0
 * @category models
 */
export interface SseEvent<T> {
  readonly event: string
  readonly data: T
  readonly id: string
  readonly retry?: number
}

/**
 * A server-sent events stream on the Promise facade (`sse`): iterate it with `for await`; it
 * reconnects by itself (SPEC 4.8). When it ends, for any reason, the iteration finishes without
 * throwing, and `closed` says how.
 *
 * - `close()`: closes the connection (and any wait to reconnect); the iteration ends.
 * - `lastEventId`: the id of the last event the iteration handed out (the stream's last event id
 *   at it), the `lastEventId` option (or `""`) before the first: reconnecting with it later resumes
 *   after what was read, events parsed but not handed out included.
 * - `closed`: resolves once the stream has ended: a success when you closed it, when the server
 *   ended it with `reconnect: false`, or answered 204; a failure with its `code` when a reconnect
 *   failed for good (a non-2xx, `reconnect.attempts` failures in a row, `DECODE_ERROR`). It never
 *   rejects.
 *
 * @example
 * ```ts
 * import { createSvc } from "svc-sdk"
 *
 * const api = createSvc("http://127.0.0.1:3000")
 * const feed = await api.sse("/events")
 * if (feed.success) {
 *   for await (const event of feed.data) console.log(event.event, event.data)
 * }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface EventStream<T> extends AsyncIterable<SseEvent<T>> {
  readonly close: () => void
  readonly lastEventId: string
  readonly closed: Promise<ApiResponse<undefined>>
}

/**
 * What {@link makeSseParser} calls, and where its stream starts.
 *
 * @since 0.1.0
 * @category models
 */
export interface SseParserOptions {
  /** Called with each event, in order, when the blank line that ends its block is read. */
  readonly onEvent: (event: SseEvent<string>) => void
  /**
   * Called with each comment line (`:` and what follows, without the `:` and one space after it):
   * servers send them as heartbeats, so they count as activity for an idle timeout.
   */
  readonly onComment?: (comment: string) => void
  /**
   * The stream's last event id before the first `id` field (the `lastEventId` option, or the one a
   * dropped connection had reached); `""` when none.
   * @default ""
   */
  readonly lastEventId?: string
}

/**
 * A server-sent events parser: `push` each chunk of the body, `end` when the body ends. An
 * exception thrown by a callback propagates out of `push` and the rest of that chunk is not read.
 *
 * @since 0.1.0
 * @category models
 */
export interface SseParser {
  /** Parses the next bytes of the body, calling `onEvent` and `onComment` as lines complete. */
  push(bytes: Uint8Array): void
  /**
   * The body ended: the unterminated last event (and its `id`) is dropped. The parser is then
   * ready for the body of a reconnection: its leading BOM is stripped again, and `lastEventId`
   * and `retry` carry over.
   */
  end(): void
  /** The stream's last event id (`Last-Event-ID` of a reconnection): set when a block ends. */
  readonly lastEventId: string
  /** The last valid `retry` field (the reconnection delay in ms the server asked for), if any. */
  readonly retry: number | undefined
  /**
   * What the parser holds between pushes, in UTF-16 code units: the event being read (its data and
   * type) and a line whose end has not arrived. Set by each `push`, `0` after `end`. It grows for as
   * long as a server sends an event without its blank line, or a line without its end: a caller
   * bounds it (svc-sdk ends an `sse` call past `maxResponseBytes`).
   */
  readonly buffered: number
}

const LF = 10
const SPACE = 32
const COLON = 58
const BOM = 0xfeff
const STREAM: TextDecodeOptions = { stream: true }

/**
 * Where the UTF-8 character split at the end of `bytes` starts (`bytes.length` when none is):
 * a lead byte in the last three without all its continuation bytes after it. Decoding the bytes
 * before it, then it with what follows, reads as decoding them all at once.
 */
const incompleteTail = (bytes: Uint8Array): number => {
  const length = bytes.length
  for (let i = length - 1; i >= 0 && i >= length - 3; i--) {
    const byte = bytes[i] as number
    if (byte >= 0x80 && byte <= 0xbf) continue
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
    return byte >= 0xc2 && byte <= 0xf4 && length - i < size ? i : length
  }
  return length
}

/** Whether `text` between `start` and `end` is one or more ASCII digits. */
const isDigits = (text: string, start: number, end: number): boolean => {
  if (start === end) return false
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

/**
 * A server-sent events parser. Decoding is UTF-8 whatever the `Content-Type` says (invalid
 * sequences become U+FFFD), with exactly one leading BOM stripped; lines end with CR, LF or CRLF
 * (a CRLF split between chunks included).
 *
 * @example
 * const parser = makeSseParser({ onEvent: (event) => console.log(event.event, event.data) })
 * parser.push(new TextEncoder().encode("event: delta\ndata: {\"token\":\"Hi\"}\n\n"))
 * // delta {"token":"Hi"}
 * parser.end()
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSseParser = (options: SseParserOptions): SseParser => {
  const { onEvent, onComment } = options
  // Two decoders, neither stripping the BOM (done here): Node's reads ASCII 3–10× faster when never
  // given `stream: true`, but text that is not ASCII ~1.5× slower than a streaming one; each chunk
  // goes to the one that suited the chunk before. For the first, a character split between chunks
  // waits in `held`; the streaming one keeps it itself.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true })
  const streamingDecoder = new TextDecoder("utf-8", { ignoreBOM: true })
  let ascii = true
  let held: Uint8Array | undefined
  let atStart = true
  let lastEventId = options.lastEventId ?? ""
  // the parser as its caller holds it: `lastEventId` and `retry` are its own data properties,
  // copies kept current here (a caller's write to them changes nothing of the parse)
  const parser = new Parser(lastEventId)
  // the block being read (the standard's buffers)
  let idBuffer = lastEventId
  let data = ""
  let dataLines = 0
  let eventType = ""
  let blockRetry: number | undefined
  // the start of a line whose end has not arrived yet: the pieces that arrived, never rescanned
  let pending = ""
  // the previous chunk ended with CR: a LF at the start of the next one completes a CRLF
  let afterCR = false

  const endBlock = (): void => {
    lastEventId = idBuffer
    parser.lastEventId = lastEventId
    const blockData = data
    const lines = dataLines
    const type = eventType
    const valid = blockRetry
    data = ""
    dataLines = 0
    eventType = ""
    blockRetry = undefined
    if (lines === 0) return
    // made by `new Object()`, not as a literal: the events of a chunk wait to be read, and V8 would
    // pretenure a literal's objects for the life of the process (measured: the facade's CPU per
    // event 2.4× on Effect 3 under Node 24; see core/record.ts, not imported by this chunk)
    const event = new Object() as { -readonly [K in keyof SseEvent<string>]: SseEvent<string>[K] }
    event.event = type === "" ? "message" : type
    event.data = blockData
    event.id = lastEventId
    if (valid !== undefined) event.retry = valid
    onEvent(event)
  }

  /** Reads the line `text[start, end)`, not empty. */
  const readField = (text: string, start: number, end: number): void => {
    const first = text.charCodeAt(start)
    if (first === COLON) {
      if (onComment !== undefined) {
        onComment(text.slice(text.charCodeAt(start + 1) === SPACE ? start + 2 : start + 1, end))
      }
      return
    }
    // the field name runs to the first colon (or the whole line, whose value is then "")
    let colon = start + 1
    while (colon < end && text.charCodeAt(colon) !== COLON) colon++
    let valueStart = colon + 1
    if (valueStart < end && text.charCodeAt(valueStart) === SPACE) valueStart++
    if (valueStart > end) valueStart = end
    switch (colon - start) {
      case 4: // data
        if (
          first === 100 &&
          text.charCodeAt(start + 1) === 97 &&
          text.charCodeAt(start + 2) === 116 &&
          text.charCodeAt(start + 3) === 97
        ) {
          const value = text.slice(valueStart, end)
          data = dataLines === 0 ? value : `${data}\n${value}`
          dataLines++
        }
        return
      case 5:
        if (
          first === 101 &&
          text.charCodeAt(start + 1) === 118 &&
          text.charCodeAt(start + 2) === 101 &&
          text.charCodeAt(start + 3) === 110 &&
          text.charCodeAt(start + 4) === 116
        ) {
          eventType = text.slice(valueStart, end)
        } else if (
          first === 114 &&
          text.charCodeAt(start + 1) === 101 &&
          text.charCodeAt(start + 2) === 116 &&
          text.charCodeAt(start + 3) === 114 &&
          text.charCodeAt(start + 4) === 121 &&
          isDigits(text, valueStart, end)
        ) {
          // digits beyond what a number holds exactly would not be the delay the server meant
          const value = Number(text.slice(valueStart, end))
          if (Number.isSafeInteger(value)) {
            parser.retry = value
            blockRetry = value
          }
        }
        return
      case 2: // id
        if (first === 105 && text.charCodeAt(start + 1) === 100) {
          const value = text.slice(valueStart, end)
          if (!value.includes("\0")) idBuffer = value
        }
        return
      default:
        return
    }
  }

  /** The text of the next chunk, not empty. */
  const decode = (chunk: Uint8Array): string => {
    if (!ascii) {
      // the streaming decoder keeps a split character itself
      const text =
        held === undefined
          ? streamingDecoder.decode(chunk, STREAM)
          : streamingDecoder.decode(held, STREAM) + streamingDecoder.decode(chunk, STREAM)
      held = undefined
      // back to the other decoder after an ASCII chunk that leaves no character split
      ascii = text.length === chunk.length && incompleteTail(chunk) === chunk.length
      return text
    }
    let bytes = chunk
    if (held !== undefined) {
      bytes = new Uint8Array(held.length + chunk.length)
      bytes.set(held)
      bytes.set(chunk, held.length)
      held = undefined
    }
    const cut = incompleteTail(bytes)
    if (cut < bytes.length) {
      held = bytes.slice(cut)
      bytes = bytes.subarray(0, cut)
    }
    const text = decoder.decode(bytes)
    // as many UTF-16 code units as bytes: ASCII only
    ascii = text.length === bytes.length
    return text
  }

  const push = (chunk: Uint8Array): void => {
    if (chunk.length === 0) return
    const text = decode(chunk)
    const length = text.length
    if (length === 0) return
    let pos = 0
    if (atStart) {
      atStart = false
      if (text.charCodeAt(0) === BOM) pos = 1
    } else if (afterCR) {
      afterCR = false
      if (text.charCodeAt(0) === LF) pos = 1
    }
    // each searched again only once passed: the chunk is scanned once for LF and once for CR
    let lf = text.indexOf("\n", pos)
    let cr = text.indexOf("\r", pos)
    while (true) {
      let end: number
      let next: number
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        if (lf === -1) break
        end = lf
        next = lf + 1
      } else {
        end = cr
        next = cr + 1
        if (next === length) afterCR = true
        else if (text.charCodeAt(next) === LF) next++
      }
      if (pending !== "") {
        const line = pending + text.slice(pos, end)
        pending = ""
        readField(line, 0, line.length)
      } else if (pos === end) endBlock()
      else if (
        // `data:`, most lines of most streams, read here
        text.charCodeAt(pos) === 100 &&
        text.charCodeAt(pos + 1) === 97 &&
        text.charCodeAt(pos + 2) === 116 &&
        text.charCodeAt(pos + 3) === 97 &&
        text.charCodeAt(pos + 4) === COLON
      ) {
        // the character at `end` is CR or LF, never a space
        const value = text.slice(text.charCodeAt(pos + 5) === SPACE ? pos + 6 : pos + 5, end)
        data = dataLines === 0 ? value : `${data}\n${value}`
        dataLines++
      } else readField(text, pos, end)
      // the blank line that ends most blocks, read without a search
      if (text.charCodeAt(next) === LF) {
        endBlock()
        next++
      }
      pos = next
      if (lf !== -1 && lf < next) lf = text.indexOf("\n", next)
      if (cr !== -1 && cr < next) cr = text.indexOf("\r", next)
    }
    if (pos < length) pending += pos === 0 ? text : text.slice(pos)
    parser.buffered = pending.length + data.length + eventType.length
  }

  const end = (): void => {
    // an incomplete character ends an unterminated line, dropped with it
    held = undefined
    streamingDecoder.decode()
    ascii = true
    atStart = true
    pending = ""
    afterCR = false
    idBuffer = lastEventId
    data = ""
    dataLines = 0
    eventType = ""
    blockRetry = undefined
    parser.buffered = 0
  }

  parser.push = push
  parser.end = end
  return parser
}

const unset = (): void => undefined

/**
 * A parser, made by a class whose fields are all data: a spread, a `Proxy` or `JSON.stringify`
 * sees its `lastEventId` and `retry`. Written as an object literal with getters, each parser got a
 * hidden class of its own, which V8 makes in the old generation, keeping the parser's state alive
 * until a full collection (test/accessors.test.ts).
 */
class Parser implements SseParser {
  push: (bytes: Uint8Array) => void = unset
  end: () => void = unset
  lastEventId: string
  retry: number | undefined = undefined
  buffered = 0
  constructor(lastEventId: string) {
    this.lastEventId = lastEventId
  }
}
