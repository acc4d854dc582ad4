/**
 * The server-sent events parser (src/core/sse.ts) against the web-platform-tests `eventsource/`
 * parsing cases, each test named after the WPT file it ports, then the cases the WPT does not
 * cover (chunk boundaries, the last event id and retry the parser exposes, the end of a body).
 *
 * The WPT's servers are ported as the bytes they send: `resources/message.py` answers
 * `message + ("\n\n" unless newline=none) + "\n"`; `last-event-id.py` answers
 * `id: <idvalue, default …>\nretry: 200\ndata: hello\n\n`, or `data: <Last-Event-ID>\n\n` when the
 * request carries one; a reconnection is `end()` then the next body.
 */
import { describe, expect, it } from "vitest"
import { makeSseParser, type SseEvent } from "../../src/core/sse.js"

const encoder = new TextEncoder()
const bytesOf = (text: string): Uint8Array => encoder.encode(text)

interface Run {
  readonly events: Array<SseEvent<string>>
  readonly comments: Array<string>
  readonly parser: ReturnType<typeof makeSseParser>
  /** Pushes each chunk (text is UTF-8 encoded). */
  readonly push: (...chunks: ReadonlyArray<string | Uint8Array>) => Run
  readonly end: () => Run
}

const run = (lastEventId?: string): Run => {
  const events: Array<SseEvent<string>> = []
  const comments: Array<string> = []
  const parser = makeSseParser({
    onEvent: (event) => events.push(event),
    onComment: (comment) => comments.push(comment),
    ...(lastEventId === undefined ? {} : { lastEventId })
  })
  const self: Run = {
    events,
    comments,
    parser,
    push: (...chunks) => {
      for (const chunk of chunks) parser.push(typeof chunk === "string" ? bytesOf(chunk) : chunk)
      return self
    },
    end: () => {
      parser.end()
      return self
    }
  }
  return self
}

/** The body `resources/message.py` answers. */
const messagePy = (message: string, newline: "none" | undefined = undefined): string =>
  `${message}${newline === "none" ? "" : "\n\n"}\n`

/** The body `resources/last-event-id.py` answers to a request with this `Last-Event-ID`. */
const lastEventIdPy = (lastEventId: string, idvalue = "…"): string =>
  lastEventId !== "" ? `data: ${lastEventId}\n\n` : `id: ${idvalue}\nretry: 200\ndata: hello\n\n`

const datas = (r: Run) => r.events.map((event) => event.data)

describe("WPT eventsource/ parsing", () => {
  it("format-bom: one leading BOM is stripped, a later one makes the field unknown", () => {
    const r = run().push(messagePy("\uFEFFdata:1\n\n\uFEFFdata:2\n\ndata:3")).end()
    expect(datas(r)).toEqual(["1", "3"])
  })

  it("format-bom-2: of two leading BOMs only the first is stripped", () => {
    const r = run().push(messagePy("\uFEFF\uFEFFdata:1\n\ndata:2\n\ndata:3")).end()
    expect(datas(r)).toEqual(["2", "3"])
  })

  it("format-comments: comments between data lines, after CR, LF and CRLF, long or not", () => {
    const long = "x".repeat(2 * 1024)
    const message = `data:1\r:\0\n:\r\ndata:2\n:${long}\rdata:3\n:data:fail\r:${long}\ndata:4\n`
    const r = run().push(messagePy(message, "none")).end()
    expect(r.events).toEqual([{ event: "message", data: "1\n2\n3\n4", id: "" }])
    expect(r.comments).toEqual(["\0", "", long, "data:fail", long])
  })

  it("format-data-before-final-empty-line: the unterminated last event and its id are dropped", () => {
    const body = messagePy("retry:1000\ndata:test1\n\nid:test\ndata:test2", "none")
    const r = run().push(body).end()
    expect(r.events).toEqual([{ event: "message", data: "test1", id: "", retry: 1000 }])
    expect(r.parser.lastEventId).toBe("")
    // the reconnection gets the same body: its first event is again test1, with no last event id
    r.push(body).end()
    expect(r.events[1]).toEqual({ event: "message", data: "test1", id: "", retry: 1000 })
  })

  it("format-field-data: `data:` is an empty line, `data` alone too, and they join with LF", () => {
    const r = run().push(messagePy("data:\n\ndata\ndata\n\ndata:test")).end()
    expect(datas(r)).toEqual(["", "\n", "test"])
  })

  it("format-field-event-empty: an empty event field dispatches a message", () => {
    const r = run().push(messagePy("event: \ndata:data")).end()
    expect(r.events).toEqual([{ event: "message", data: "data", id: "" }])
  })

  it("format-field-event: the event field names the event, for its block only", () => {
    const r = run().push(messagePy("event:test\ndata:x\n\ndata:x")).end()
    expect(r.events.map((event) => event.event)).toEqual(["test", "message"])
  })

  it("format-field-id: the id is the event's and the stream's, and survives a reconnection", () => {
    const r = run().push(lastEventIdPy("")).end()
    expect(r.events).toEqual([{ event: "message", data: "hello", id: "…", retry: 200 }])
    expect(r.parser.lastEventId).toBe("…")
    r.push(lastEventIdPy(r.parser.lastEventId)).end()
    expect(r.events[1]).toEqual({ event: "message", data: "…", id: "…" })
  })

  it("format-field-id-2: the id survives two reconnections", () => {
    const r = run().push(lastEventIdPy("")).end()
    r.push(lastEventIdPy(r.parser.lastEventId)).end()
    r.push(lastEventIdPy(r.parser.lastEventId)).end()
    expect(r.events.map((event) => [event.data, event.id])).toEqual([
      ["hello", "…"],
      ["…", "…"],
      ["…", "…"]
    ])
  })

  describe("format-field-id-3", () => {
    const ids = (body: string) =>
      run()
        .push(body)
        .end()
        .events.map((event) => [event.data, event.id])

    it("lastEventId persists", () => {
      expect(ids("id: 1\ndata: 1\n\ndata: 2\n\nid: 2\ndata:3\n\ndata:4\n\n")).toEqual([
        ["1", "1"],
        ["2", "1"],
        ["3", "2"],
        ["4", "2"]
      ])
    })

    it("lastEventId resets", () => {
      expect(ids("id: 1\ndata: 1\n\nid:\ndata:2\n\ndata:3\n\n")).toEqual([
        ["1", "1"],
        ["2", ""],
        ["3", ""]
      ])
    })

    it("lastEventId resets (id without colon)", () => {
      expect(ids("id: 1\ndata: 1\n\nid\ndata:2\n\ndata:3\n\n")).toEqual([
        ["1", "1"],
        ["2", ""],
        ["3", ""]
      ])
    })
  })

  describe("format-field-id-null", () => {
    it.each(["\0\0", "x\0", "\0x", "x\0x", " \0"])("id field set to %j is ignored", (idvalue) => {
      const r = run().push(lastEventIdPy("", idvalue)).end()
      expect(r.parser.lastEventId).toBe("")
      // no Last-Event-ID is sent, so the server answers the same again
      r.push(lastEventIdPy(r.parser.lastEventId, idvalue)).end()
      expect(r.events.map((event) => [event.data, event.id])).toEqual([
        ["hello", ""],
        ["hello", ""]
      ])
    })
  })

  it("format-field-parsing: field names are exact, one space is removed, NUL is data", () => {
    const message =
      "data:\0\ndata:  2\rData:1\ndata\0:2\ndata:1\r\0data:4\nda-ta:3\rdata_5\ndata:3\rdata:\r\n data:32\ndata:4\n"
    const r = run().push(messagePy(message, "none")).end()
    expect(datas(r)).toEqual(["\0\n 2\n1\n3\n\n4"])
  })

  it("format-field-retry: retry is read in base ten (03000 is 3000)", () => {
    const r = run().push(messagePy("retry:03000\ndata:x")).end()
    expect(r.parser.retry).toBe(3000)
    expect(r.events).toEqual([{ event: "message", data: "x", id: "", retry: 3000 }])
  })

  it("format-field-retry-bogus: a retry with a non-digit is ignored", () => {
    const r = run().push(messagePy("retry:3000\nretry:1000x\ndata:x")).end()
    expect(r.parser.retry).toBe(3000)
    expect(r.events).toEqual([{ event: "message", data: "x", id: "", retry: 3000 }])
  })

  it("format-field-retry-empty: an empty retry is ignored and the event still dispatched", () => {
    const r = run().push(messagePy("retry\ndata:test")).end()
    expect(r.parser.retry).toBeUndefined()
    expect(r.events).toEqual([{ event: "message", data: "test", id: "" }])
    expect("retry" in (r.events[0] ?? {})).toBe(false)
  })

  it("format-field-unknown: unknown fields, leading spaces and text without colon are ignored", () => {
    const message =
      "data:test\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:test"
    const r = run().push(messagePy(message)).end()
    expect(datas(r)).toEqual(["test\n\ntest"])
    expect(r.comments).toEqual(["thisisacommentyay"])
  })

  it("format-leading-space: only a space after the colon is removed, not a tab", () => {
    const r = run().push(messagePy("data:\ttest\rdata: \ndata:test")).end()
    expect(datas(r)).toEqual(["\ttest\n\ntest"])
  })

  it("format-newlines: CRLF, LF and CR end lines alike", () => {
    const r = run().push(messagePy("data:test\r\ndata\ndata:test\r\n\r", "none")).end()
    expect(datas(r)).toEqual(["test\n\ntest"])
  })

  it("format-null-character: a NUL in data is kept", () => {
    const r = run().push(messagePy("data:\0\n\n")).end()
    expect(datas(r)).toEqual(["\0"])
  })

  it("format-utf-8: the body is UTF-8 whatever the charset", () => {
    const body = new Uint8Array([...bytesOf("data:ok"), 0xe2, 0x80, 0xa6, ...bytesOf("\n\n\n")])
    expect(datas(run().push(body).end())).toEqual(["ok…"])
  })

  it("event-data: lines and data parsing over small writes (resources/message2.py)", () => {
    const r = run()
      .push("data:msg", "\n", "data: msg", "\n\n")
      .push(":", "\n")
      .push("falsedata:msg", "\n\n")
      .push("d", "ata:", "\n\n")
      .push("data:end", "\n\n")
    expect(datas(r)).toEqual(["msg\nmsg", "", "end"])
    expect(r.comments).toEqual([""])
  })

  it("eventsource-onmessage: the default message.py body", () => {
    const r = run().push(messagePy("data: data")).end()
    expect(r.events).toEqual([{ event: "message", data: "data", id: "" }])
  })
})

describe("makeSseParser", () => {
  it("its lastEventId and retry are own properties: read through a Proxy, copied by a spread", () => {
    const stream = run().push("retry: 5\nid: 9\ndata: x\n\n")
    const parser = stream.parser
    const proxied = new Proxy(parser, {})
    expect([proxied.lastEventId, proxied.retry]).toEqual(["9", 5])
    const copy = { ...parser }
    expect([copy.lastEventId, copy.retry]).toEqual(["9", 5])
    // what a caller writes there is not the parse's
    ;(parser as { lastEventId: string }).lastEventId = "forged"
    stream.push("data: y\n\n")
    expect(stream.events.map((event) => event.id)).toEqual(["9", "9"])
    expect(parser.lastEventId).toBe("9")
  })

  it("keeps a CRLF split between chunks as one line end, not a blank line", () => {
    const r = run().push("data:a\r", "\ndata:b\r", "", "\n\r", "\n")
    expect(r.events).toEqual([{ event: "message", data: "a\nb", id: "" }])
  })

  it("ends a line at a CR that ends a chunk, with no LF after", () => {
    const r = run().push("data:a\r", "\r")
    expect(datas(r)).toEqual(["a"])
    r.push("data:b\r", "data:c\r\r")
    expect(datas(r)).toEqual(["a", "b\nc"])
  })

  it("reads a line split over many chunks, whole", () => {
    const value = "é".repeat(5000)
    const bytes = bytesOf(`event: big\ndata: ${value}\nid: 9\n\n`)
    const r = run()
    for (let i = 0; i < bytes.length; i += 3) r.push(bytes.subarray(i, i + 3))
    expect(r.events).toEqual([{ event: "big", data: value, id: "9" }])
  })

  it("decodes a character split between chunks, and a BOM split between chunks", () => {
    const bytes = bytesOf("\uFEFFdata: 😀é\n\n")
    const r = run()
    for (const byte of bytes) r.push(new Uint8Array([byte]))
    expect(datas(r)).toEqual(["😀é"])
  })

  it("decodes a character split between chunks, as the chunks turn from ASCII to not and back", () => {
    const emoji = bytesOf("😀")
    const e = bytesOf("é")
    const r = run().push(
      "data: a\n",
      // not ASCII, and the next character split: it waits for its other bytes
      new Uint8Array([...bytesOf("data: é"), ...emoji.subarray(0, 2)]),
      new Uint8Array([...emoji.subarray(2), ...bytesOf("\n\ndata: b"), ...e.subarray(0, 1)]),
      new Uint8Array([...e.subarray(1), ...bytesOf("\n")]),
      "data: c\n",
      new Uint8Array([...bytesOf("data: d"), ...e.subarray(0, 1)]),
      new Uint8Array([...e.subarray(1), ...bytesOf("\n\n")])
    )
    expect(datas(r)).toEqual(["a\né😀", "bé\nc\ndé"])
  })

  it("reads an invalid UTF-8 sequence as U+FFFD", () => {
    const r = run().push(new Uint8Array([...bytesOf("data:a"), 0xff, 0xc3, ...bytesOf("\n\n")]))
    expect(datas(r)).toEqual(["a\uFFFD\uFFFD"])
  })

  it("starts from the lastEventId given, until an id field replaces it", () => {
    const r = run("41").push("data:a\n\nid: 42\ndata:b\n\ndata:c\n\n")
    expect(r.events.map((event) => event.id)).toEqual(["41", "42", "42"])
    expect(r.parser.lastEventId).toBe("42")
  })

  it("sets the last event id from a block with an id and no data, when the block ends", () => {
    const r = run().push("id: 7\n")
    expect(r.parser.lastEventId).toBe("")
    r.push("\n")
    expect(r.parser.lastEventId).toBe("7")
    expect(r.events).toEqual([])
    r.push("data:x\n\n")
    expect(r.events).toEqual([{ event: "message", data: "x", id: "7" }])
  })

  it("never dispatches a block without data, and forgets its event name", () => {
    const r = run().push("event: ping\n\n:only a comment\n\nretry: 5\n\ndata:x\n\n")
    expect(r.events).toEqual([{ event: "message", data: "x", id: "" }])
    expect(r.parser.retry).toBe(5)
  })

  it("gives retry to the event whose block carried it, and keeps the last valid one", () => {
    const r = run().push("retry: 10\ndata:a\n\ndata:b\n\nretry: 20\nretry: 2x\ndata:c\n\n")
    expect(r.events).toEqual([
      { event: "message", data: "a", id: "", retry: 10 },
      { event: "message", data: "b", id: "" },
      { event: "message", data: "c", id: "", retry: 20 }
    ])
    expect(r.parser.retry).toBe(20)
  })

  it("sets retry as soon as the field is read, before its block ends", () => {
    const r = run().push("retry: 1500\n")
    expect(r.parser.retry).toBe(1500)
  })

  it("ignores a retry beyond what a number holds exactly", () => {
    const r = run().push(`retry: ${"9".repeat(400)}\ndata:x\n\n`)
    expect(r.parser.retry).toBeUndefined()
    expect(r.events).toEqual([{ event: "message", data: "x", id: "" }])
  })

  it("drops at the end an unterminated line, the lines of the unfinished block, and its id", () => {
    const r = run("1").push("data:a\n\nid: 2\nevent: e\ndata: b\n").push("data: c").end()
    expect(datas(r)).toEqual(["a"])
    expect(r.parser.lastEventId).toBe("1")
    // the next body starts a fresh block (and may start with a BOM again)
    r.push("\uFEFFdata: d\n\n")
    expect(r.events[1]).toEqual({ event: "message", data: "d", id: "1" })
  })

  it("reports comments without the colon and one space", () => {
    const r = run().push(":\n: ping\n:  two spaces\r:x\r\n")
    expect(r.comments).toEqual(["", "ping", " two spaces", "x"])
    expect(r.events).toEqual([])
  })

  it("runs without onComment", () => {
    const events: Array<string> = []
    const parser = makeSseParser({ onEvent: (event) => events.push(event.data) })
    parser.push(bytesOf(": heartbeat\ndata: x\n\n"))
    expect(events).toEqual(["x"])
  })

  it("reads many events of one chunk in order", () => {
    const body = Array.from({ length: 1000 }, (_, i) => `id: ${i}\ndata: {"i":${i}}\n\n`).join("")
    const r = run().push(body)
    expect(r.events).toHaveLength(1000)
    expect(r.events[999]).toEqual({ event: "message", data: '{"i":999}', id: "999" })
  })

  it("says what it holds between pushes: the event being read and a line not yet ended", () => {
    const parser = makeSseParser({ onEvent: () => undefined })
    const push = (text: string) => {
      parser.push(bytesOf(text))
      return parser.buffered
    }
    expect(parser.buffered).toBe(0)
    expect(push("data: abc\n")).toBe(3)
    // the line in progress counts as it arrived ("data: de"), with the data before it
    expect(push("data: de")).toBe(11)
    expect(push("f\nevent: update\n")).toBe(3 + 1 + 3 + 6)
    // a blank line ends the block: nothing is held
    expect(push("\n")).toBe(0)
    // an id is the stream's, not the block's; a comment is not held
    expect(push("id: 7\n: ping\n")).toBe(0)
    expect(push(": a comment without its end")).toBe(": a comment without its end".length)
    parser.end()
    expect(parser.buffered).toBe(0)
  })
})
