/**
 * What `stream` and `sse` add to a request's options, checked per call for both Effect lines (in
 * a module of its own: only a stream's first call loads it).
 */
import type { describe, isRecord } from "./describe.js"
import type { InvalidArgument, LineValues, timeoutMillis } from "./options.js"

/** The shared checks it uses, handed over by its caller (see `common/streams.ts`). */
export interface StreamChecks {
  readonly timeoutMillis: typeof timeoutMillis
  readonly describe: typeof describe
  readonly isRecord: typeof isRecord
}

const invalid = (argument: string, reason: string): InvalidArgument => ({
  _tag: "InvalidArgument",
  argument,
  reason
})

/** A safe integer ≥ 0. */
const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0

/** The default wait before an `sse` stream reconnects: 3 s, as EventSource's. */
export const DEFAULT_RECONNECT_DELAY_MILLIS = 3_000

const STREAM_METHODS: ReadonlySet<unknown> = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"])

/** The settings of a `stream` or `sse` call, once checked. */
export interface CheckedStream {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  /** The longest silence allowed while the body is read; `0`: none. */
  readonly idleTimeoutMillis: number
  /** `sse` only: the initial last event id. */
  readonly lastEventId: string
  /** `sse` only: `false`, or how to reconnect. */
  readonly reconnect: false | { readonly attempts: number; readonly delayMillis: number }
}

/**
 * What an event id cannot hold to go back in `Last-Event-ID`: a control character other than tab (an
 * id never holds NUL, CR or LF). Its other characters go as their UTF-8 bytes, as EventSource sends
 * them ({@link lastEventIdHeader}).
 */
export const UNSENDABLE_EVENT_ID = /[^\t\x20-\x7e\x80-\uffff]/

/** `id` as the `Last-Event-ID` header's value: its UTF-8 bytes, one character each. */
export const lastEventIdHeader = (id: string): string => {
  if (!/[\x80-\uffff]/.test(id)) return id
  let value = ""
  for (const byte of new TextEncoder().encode(id)) value += String.fromCharCode(byte)
  return value
}

/**
 * Checks what `stream` and `sse` add to a request's options (`method`, `idleTimeout`, and for
 * `sse` `lastEventId` and `reconnect`); the request's own options are checked with the request.
 */
export const checkStream = (
  line: LineValues,
  options: unknown,
  clientIdleTimeout: unknown,
  { timeoutMillis, describe, isRecord }: StreamChecks
): CheckedStream | InvalidArgument => {
  if (!isRecord(options)) return invalid("options", `must be an object, got ${describe(options)}`)
  // sse merges them into each connection's before the request's own check could see them
  if (options.headers !== undefined && !isRecord(options.headers)) {
    return invalid("options.headers", `must be an object, got ${describe(options.headers)}`)
  }
  const method = options.method ?? "GET"
  if (!STREAM_METHODS.has(method)) {
    return invalid(
      "options.method",
      `must be one of GET, POST, PUT, PATCH, DELETE, got ${describe(method)}`
    )
  }
  // fetch refuses one, undici would send it: the same answer on every transport
  if (method === "GET" && options.body !== undefined) {
    return invalid("options.body", "must be absent from a GET request")
  }
  let idle = 0
  const idleTimeout = options.idleTimeout ?? clientIdleTimeout
  if (idleTimeout !== undefined) {
    const checked = timeoutMillis(line, idleTimeout)
    if (typeof checked === "string") return invalid("options.idleTimeout", checked)
    idle = checked
  }
  const lastEventId = options.lastEventId ?? ""
  if (typeof lastEventId !== "string" || UNSENDABLE_EVENT_ID.test(lastEventId)) {
    return invalid(
      "options.lastEventId",
      `must be a string without control characters (tab aside), got ${describe(lastEventId)}`
    )
  }
  const reconnect = options.reconnect ?? {}
  if (reconnect === false) {
    return {
      method: method as CheckedStream["method"],
      idleTimeoutMillis: idle,
      lastEventId,
      reconnect
    }
  }
  if (!isRecord(reconnect)) {
    return invalid("options.reconnect", `must be false or an object, got ${describe(reconnect)}`)
  }
  const attempts = reconnect.attempts ?? Number.POSITIVE_INFINITY
  if (!(attempts === Number.POSITIVE_INFINITY || isCount(attempts))) {
    return invalid(
      "options.reconnect.attempts",
      `must be an integer ≥ 0 or Infinity, got ${describe(attempts)}`
    )
  }
  let delayMillis = DEFAULT_RECONNECT_DELAY_MILLIS
  if (reconnect.delay !== undefined) {
    const checked = timeoutMillis(line, reconnect.delay)
    if (typeof checked === "string") return invalid("options.reconnect.delay", checked)
    delayMillis = checked
  }
  return {
    method: method as CheckedStream["method"],
    idleTimeoutMillis: idle,
    lastEventId,
    // no failed reconnect allowed: none is tried (as `retryAttempts: 0` retries nothing)
    reconnect: attempts === 0 ? false : { attempts, delayMillis }
  }
}
