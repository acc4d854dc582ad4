/**
 * The demo app's streamed routes, written once for both Effect lines' routers (`app.ts` on
 * Effect 4, `v3/app.ts` on Effect 3):
 *
 * - `GET /events`: a live feed of server-sent events, each with an `id`, so that a reconnect that
 *   sends `Last-Event-ID` resumes after it; a `retry:` field, heartbeat comments while it is quiet,
 *   and query parameters that bound it (`count`, `interval`, `heartbeat`, `retry`) or drop the
 *   connection after an event (`drop`), to show a reconnect resuming;
 * - `POST /chat`: an answer to `{ "prompt": "..." }` streamed token by token as events with JSON
 *   data, ending with a `done` event, as AI APIs stream theirs;
 * - `GET /download?bytes=N`: N bytes, sent in chunks as they are made, with a `Content-Length`.
 *
 * Each line's app reads the request, calls these and turns a {@link Streamed} into its own
 * `HttpServerResponse.stream` (an {@link Answer} as any other). Only what both Effects spell the
 * same is used here (`Effect.sleep`, `Stream`, `Schema`).
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { type Answer, failWith, urlOf } from "./answers.js"

/** A streamed answer: a status, its headers and a body sent as the stream makes it. */
export interface Streamed {
  readonly status: number
  readonly contentType: string
  readonly headers: Readonly<Record<string, string>>
  readonly stream: Stream.Stream<Uint8Array, DroppedConnection>
}

/** Tells a streamed answer from a JSON one. */
export const isStreamed = (answer: Streamed | Answer): answer is Streamed => "stream" in answer

/**
 * Ends a feed's body mid-stream (`?drop=N`), once its connection is closed without the body's end
 * (what a network failure looks like to a client).
 */
export class DroppedConnection extends Data.TaggedError("DroppedConnection")<{
  readonly dropAfter: number
}> {}

/** A piece of a body: text sent after waiting `wait` ms, or the connection dropped. */
type Piece =
  | { readonly wait: number; readonly text: string }
  | { readonly dropAfter: number; readonly drop: () => Promise<void> }

const encoder = new TextEncoder()

/** The body the pieces make, each sent once its wait is over. */
const bodyOf = (pieces: Iterable<Piece>): Stream.Stream<Uint8Array, DroppedConnection> =>
  Stream.fromIterable(pieces).pipe(
    Stream.mapEffect((piece) =>
      "drop" in piece
        ? Effect.andThen(
            Effect.promise(piece.drop),
            Effect.fail(new DroppedConnection({ dropAfter: piece.dropAfter }))
          )
        : Effect.as(Effect.sleep(piece.wait), encoder.encode(piece.text))
    )
  )

/**
 * Asks a proxy (nginx) not to buffer the events, which would hold them back. (The guards add
 * `Cache-Control: no-store`: the routes that send events are a signed-in user's.)
 */
const EVENT_STREAM_HEADERS = { "x-accel-buffering": "no" } as const

/**
 * A whole-number query parameter of `url` from `min` to `max`: `fallback` when absent, an error
 * text when it is not such a number (`?count=five`, `?count=1e3`, `?count=-1`, too large).
 */
export const wholeParam = (
  url: string,
  name: string,
  { min, max, fallback }: { readonly min: number; readonly max: number; readonly fallback: number }
): number | string => {
  const text = urlOf(url).searchParams.get(name)
  if (text === null) return fallback
  const value = /^[0-9]{1,9}$/.test(text) ? Number(text) : Number.NaN
  return value >= min && value <= max
    ? value
    : `Query parameter "${name}" must be a whole number from ${min} to ${max}`
}

/** The bounds of `/events`'s query parameters (all optional). */
export const FEED_PARAMS = {
  /** How many events the feed has, ids `1` to `count`. */
  count: { min: 1, max: 1_000, fallback: 10 },
  /** The wait between two events, in ms. */
  interval: { min: 0, max: 60_000, fallback: 1_000 },
  /** The longest silence, in ms: a comment is sent when no event has been for that long. */
  heartbeat: { min: 10, max: 60_000, fallback: 15_000 },
  /** The `retry:` field: how long a client waits before it reconnects, in ms. */
  retry: { min: 0, max: 60_000, fallback: 2_000 },
  /** Drops the connection right after the event with this id (`0`: never). */
  drop: { min: 0, max: 1_000, fallback: 0 }
} as const

type FeedSettings = { readonly [K in keyof typeof FEED_PARAMS]: number }

export const BAD_LAST_EVENT_ID = failWith(
  400,
  "Last-Event-ID must be the id of an event of this feed"
)

/** Reads `/events`'s query, or answers 400 naming the first parameter that is wrong. */
const feedSettings = (url: string): FeedSettings | Answer => {
  const settings: Record<string, number> = {}
  for (const [name, bounds] of Object.entries(FEED_PARAMS)) {
    const value = wholeParam(url, name, bounds)
    if (typeof value === "string") return failWith(400, value)
    settings[name] = value
  }
  return settings as FeedSettings
}

/** The data of the feed's event `seq` (of `count`). */
export const feedUpdate = (seq: number, count: number) => ({
  seq,
  text: `Update ${seq} of ${count}`
})

/**
 * Closes a response's connection once what it wrote has been sent, without ending its body: the
 * body is cut short, as a network failure cuts it. Node (26 and later) hands a response's writes
 * to its socket a tick later, so the socket ends after an empty write's callback, not at once.
 */
export const closeConnection = (response: {
  readonly socket: { end(callback: () => void): unknown } | null
  write(chunk: string, callback: () => void): unknown
}): Promise<void> =>
  new Promise((resolve) => {
    const socket = response.socket
    if (socket === null) return resolve()
    response.write("", () => socket.end(resolve))
  })

/**
 * `GET /events`: the events after `lastEventId` (the request's `Last-Event-ID`; absent or empty,
 * from the first). Every event has an `id`; the first block sets `retry:`; a comment is sent
 * after each `heartbeat` ms without an event. A feed whose events have all been sent answers 204,
 * which tells a client not to reconnect. A connection that sends event `drop` is dropped right
 * after it (one that resumes after it is not): `dropConnection` closes the socket once what was
 * written has been sent, mid-body.
 */
export const feed = (
  url: string,
  lastEventId: string | undefined,
  dropConnection: () => Promise<void>
): Streamed | Answer => {
  const settings = feedSettings(url)
  if (!("count" in settings)) return settings
  const { count, interval, heartbeat, retry, drop } = settings
  const last = lastEventId === undefined || lastEventId === "" ? 0 : lastEventId
  if (typeof last === "string" && !/^[0-9]{1,9}$/.test(last)) return BAD_LAST_EVENT_ID
  const after = Number(last)
  if (after > count) return BAD_LAST_EVENT_ID
  const headers = EVENT_STREAM_HEADERS
  if (after === count) {
    return { status: 204, contentType: "text/event-stream", headers, stream: Stream.empty }
  }
  function* pieces(): Generator<Piece> {
    const from = after === 0 ? "the first event" : `after event ${after}`
    yield { wait: 0, text: `: ${count} events, from ${from}\nretry: ${retry}\n\n` }
    for (let seq = after + 1; seq <= count; seq++) {
      let wait = seq === after + 1 ? 0 : interval
      for (; wait > heartbeat; wait -= heartbeat) yield { wait: heartbeat, text: ": heartbeat\n\n" }
      const data = JSON.stringify(feedUpdate(seq, count))
      yield { wait, text: `id: ${seq}\nevent: update\ndata: ${data}\n\n` }
      if (seq === drop) return yield { dropAfter: drop, drop: dropConnection }
    }
  }
  return { status: 200, contentType: "text/event-stream", headers, stream: bodyOf(pieces()) }
}

/** `POST /chat`'s body. */
export const ChatBody = Schema.Struct({ prompt: Schema.String })

/** The longest prompt `/chat` takes, in characters. */
export const MAX_PROMPT = 2_000

export const BAD_CHAT_BODY = failWith(
  400,
  `Expected a JSON body {"prompt"}: a prompt of 1 to ${MAX_PROMPT} characters`
)

/** The wait before each token of a `/chat` answer, in ms. */
export const TOKEN_DELAY = 15

/**
 * The data of every `/chat` event: `token` the next piece of the answer (`""` on the last event,
 * `done`, which also says why the answer stopped and how many tokens it had).
 */
export const ChatChunk = Schema.Struct({
  token: Schema.String,
  finish: Schema.optional(Schema.String),
  tokens: Schema.optional(Schema.Number)
})

const HAIKU = "Request sent in hope;\nbytes arrive one by one, then\ntwo hundred, at last."

/**
 * What the demo's stand-in for a language model answers: a haiku when asked for one, else the same
 * few words for any prompt.
 */
export const answerTo = (prompt: string): string =>
  /haiku/i.test(prompt)
    ? HAIKU
    : `You asked ${prompt.trim().length} characters' worth. This is the demo server, not a model: it streams a canned answer token by token, as AI APIs stream theirs.`

/** An answer's tokens: each word with the blank before it, so that they join into the answer. */
export const tokensOf = (answer: string): ReadonlyArray<string> => answer.match(/\s*\S+/g) ?? []

/**
 * `POST /chat`: the answer to the prompt, an `event: token` per token (`{"token": "..."}`), then
 * `event: done` (`{"token": "", "finish": "stop", "tokens": n}`). No ids: an answer is not resumed.
 */
export const chat = (prompt: string): Streamed | Answer => {
  if (prompt.trim() === "" || prompt.length > MAX_PROMPT) return BAD_CHAT_BODY
  const tokens = tokensOf(answerTo(prompt))
  const event = (name: string, data: typeof ChatChunk.Type) =>
    `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
  const pieces: Array<Piece> = [
    ...tokens.map((token) => ({ wait: TOKEN_DELAY, text: event("token", { token }) })),
    { wait: 0, text: event("done", { token: "", finish: "stop", tokens: tokens.length }) }
  ]
  return {
    status: 200,
    contentType: "text/event-stream",
    headers: EVENT_STREAM_HEADERS,
    stream: bodyOf(pieces)
  }
}

/** `/download?bytes=`: how many bytes (default 1 MiB, at most 16 MiB). */
export const DOWNLOAD_PARAMS = { bytes: { min: 0, max: 16 * 1024 * 1024, fallback: 1024 * 1024 } }

/** A download is sent in chunks of this many bytes, each after a short wait (a slow link). */
export const DOWNLOAD_CHUNK = 64 * 1024
const CHUNK_DELAY = 5

/** What a download's bytes are: this line, again and again. */
const PATTERN = encoder.encode("svc-sdk demo download: bytes as they arrive\n")
const FULL_CHUNK = Uint8Array.from(
  { length: DOWNLOAD_CHUNK },
  (_, i) => PATTERN[i % PATTERN.length]!
)

/** `GET /download?bytes=N`: N bytes with a `Content-Length`, in chunks; 400 past the cap. */
export const download = (url: string): Streamed | Answer => {
  const bytes = wholeParam(url, "bytes", DOWNLOAD_PARAMS.bytes)
  if (typeof bytes === "string") return failWith(400, bytes)
  return {
    status: 200,
    contentType: "application/octet-stream",
    // a header rather than the response's `contentLength`, which both Effects leave out when 0
    headers: {
      "content-length": String(bytes),
      "content-disposition": 'attachment; filename="demo.bin"'
    },
    stream: Stream.fromIterable(downloadChunks(bytes)).pipe(
      Stream.mapEffect((chunk) => Effect.as(Effect.sleep(CHUNK_DELAY), chunk))
    )
  }
}

/** The chunks of an N-byte download: full chunks, then what is left. */
function* downloadChunks(bytes: number): Generator<Uint8Array> {
  for (let sent = 0; sent < bytes; sent += DOWNLOAD_CHUNK) {
    yield bytes - sent >= DOWNLOAD_CHUNK ? FULL_CHUNK : FULL_CHUNK.subarray(0, bytes - sent)
  }
}
