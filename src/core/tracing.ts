/**
 * What a call's client span and duration metric say, written once for both Effect lines:
 * OpenTelemetry's HTTP client conventions (names, attributes, `error.type`), trace context headers
 * (`traceparent`, `b3`), and the per-call record of every send. `common/tracing.ts` makes the span
 * and updates the metric, each line's dialect (`TracingDialect`) giving its Effect's API.
 *
 * Nothing here ever reads a header: no span, attribute or event holds the session header's value,
 * whatever its name, and URLs go in with every query value replaced by `REDACTED`.
 */
import { record } from "./record.js"
import type { TransportRequest } from "./transport.js"
import { isAbsoluteUrl } from "./url.js"

/** What a redacted query value reads as (OpenTelemetry's word for it). */
export const REDACTED = "REDACTED"

/**
 * The name of the request-duration histogram (seconds), as OpenTelemetry's HTTP client
 * conventions name it.
 */
export const DURATION_METRIC = "http.client.request.duration"

export const DURATION_DESCRIPTION =
  "Duration of HTTP client requests, retries and redirects included"

/** OpenTelemetry's advised buckets for `http.client.request.duration`, in seconds. */
export const DURATION_BOUNDARIES: ReadonlyArray<number> = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10
]

const DEFAULT_PORTS: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 }

/**
 * `url` as a span may hold it: every query value `REDACTED` (the keys stay), no fragment, no user
 * info. A URL that does not parse keeps only what precedes its query.
 */
export const redactUrl = (url: string): string => {
  const parsed = parse(url)
  return parsed === undefined
    ? url.replace(/[?#].*$/s, "").replace(/\/\/[^/@]*@/, "//")
    : redactParsed(parsed)
}

const parse = (url: string): URL | undefined => {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

const redactParsed = (url: URL): string => {
  const base = `${url.origin}${url.pathname}`
  if (url.search.length <= 1) return base
  const query = url.search
    .slice(1)
    .split("&")
    .map((pair) => {
      const at = pair.indexOf("=")
      return at === -1 ? pair : `${pair.slice(0, at)}=${REDACTED}`
    })
    .join("&")
  return `${base}?${query}`
}

/** A span's or metric's attributes. */
export type Attributes = Record<string, string | number>

/**
 * The request attributes of a call's span: `http.request.method`, `url.full` (query values
 * redacted), `server.address` (the host name, without IPv6 brackets) and `server.port` (the
 * scheme's default when the URL names none).
 */
export const requestAttributes = (method: string, url: string): Attributes => {
  const attributes = record<Attributes>()
  attributes["http.request.method"] = method
  const server = plainServer(url)
  if (server !== undefined) {
    // a URL without query, fragment or user info is its own `url.full`: no parse per request
    attributes["url.full"] = url
    attributes["server.address"] = server.address
    attributes["server.port"] = server.port
    return attributes
  }
  const parsed = parse(url)
  if (parsed === undefined) {
    attributes["url.full"] = redactUrl(url)
    return attributes
  }
  attributes["url.full"] = redactParsed(parsed)
  const { address, port } = serverOf(parsed)
  attributes["server.address"] = address
  if (port !== undefined) attributes["server.port"] = port
  return attributes
}

interface Server {
  readonly address: string
  readonly port: number | undefined
}

const serverOf = (url: URL): Server => {
  const host = url.hostname
  return {
    // URL keeps IPv6 brackets in the host name; the conventions do not
    address: host.startsWith("[") ? host.slice(1, -1) : host,
    port: url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port)
  }
}

/** A server whose port is known. */
export interface KnownServer {
  readonly address: string
  readonly port: number
}

/** The servers of the origins seen so far (a client talks to a few): parsed once each. */
const servers = new Map<string, KnownServer>()

/**
 * The server of an `http(s)://origin/path` URL with nothing to redact (no query, fragment or
 * user info) whose origin was parsed before, without parsing it again; `undefined` otherwise.
 * The same origin always gives the same object.
 */
const plainServer = (url: string): KnownServer | undefined => {
  const start = url.indexOf("//")
  // what parsing would change or redact: a query, a fragment, user info, escapes, dot segments
  if (start === -1 || /[?#@%\\\s]|\/\./.test(url)) return undefined
  const end = url.indexOf("/", start + 2)
  const origin = end === -1 ? url : url.slice(0, end)
  const known = servers.get(origin)
  if (known !== undefined || servers.size >= MAX_SERVERS) return known
  const parsed = parse(url)
  if (parsed === undefined || parsed.origin !== origin) return undefined
  const server = serverOf(parsed)
  if (server.port === undefined) return undefined
  const entry = { address: server.address, port: server.port }
  servers.set(origin, entry)
  return entry
}

const MAX_SERVERS = 64

/** The fields of a failure the conventions read: its code, and the status of its response. */
export interface FailureFields {
  readonly code: string
  readonly status?: number | undefined
}

/**
 * `error.type` of a failure, as OpenTelemetry's conventions ask: the status code as a string for
 * an HTTP error (`"404"`), else the failure's code (`TIMEOUT`, `NETWORK_ERROR`, `ABORTED`,
 * `DECODE_ERROR`, `INTERCEPTOR_ERROR`, `INVALID_REQUEST`, `RESPONSE_TOO_LARGE`).
 */
export const errorType = (failure: FailureFields): string =>
  failure.code === "HTTP_ERROR" && failure.status !== undefined
    ? String(failure.status)
    : failure.code

/** `error.type` when the caller's fiber was interrupted before the call ended. */
export const INTERRUPTED = "ABORTED"

/** The status code a failure came with, when a response came: `undefined` otherwise. */
export const failureStatus = (failure: FailureFields): number | undefined =>
  failure.status !== undefined && failure.status > 0 ? failure.status : undefined

/** What a call ended with, as the span's and the metric's attributes read it. */
export interface Outcome {
  readonly status: number | undefined
  readonly errorType: string | undefined
}

/**
 * The attributes of the duration metric: method, status code (when a response came), server
 * address and port, and `error.type` on a failure. Its values are strings (Effect's metric
 * attributes are).
 */
export const metricAttributes = (request: Attributes, outcome: Outcome): Record<string, string> => {
  const attributes: Record<string, string> = {
    "http.request.method": String(request["http.request.method"])
  }
  if (request["server.address"] !== undefined) {
    attributes["server.address"] = String(request["server.address"])
  }
  if (request["server.port"] !== undefined) {
    attributes["server.port"] = String(request["server.port"])
  }
  if (outcome.status !== undefined) {
    attributes["http.response.status_code"] = String(outcome.status)
  }
  if (outcome.errorType !== undefined) attributes["error.type"] = outcome.errorType
  return attributes
}

/**
 * A line's series of the duration metric, made once per set of attribute values (a client talks to
 * few servers, with few statuses): looking a series up by its attributes' values costs a request
 * less than Effect's metric keys would, built at each update. Past {@link MAX_SERIES} sets, a
 * series is made for each request (still counted, as Effect adds it to its registry's).
 */
export class DurationSeries<M> {
  private readonly series = new Map<string, M>()
  /** The same series by server (a {@link plainServer}), method and outcome: no key to build. */
  private readonly byServer = new Map<KnownServer, Map<string, Map<number | string, M>>>()
  constructor(private readonly make: (attributes: Readonly<Record<string, string>>) => M) {}

  of(request: Attributes, outcome: Outcome): M {
    return this.kept(request, outcome) ?? this.make(metricAttributes(request, outcome))
  }

  /** The series kept for these values, made and kept while there is room; else `undefined`. */
  private kept(request: Attributes, outcome: Outcome): M | undefined {
    const key = `${request["http.request.method"]} ${request["server.address"]} ${
      request["server.port"]
    } ${outcome.status} ${outcome.errorType}`
    let series = this.series.get(key)
    if (series === undefined && this.series.size < MAX_SERIES) {
      series = this.make(metricAttributes(request, outcome))
      this.series.set(key, series)
    }
    return series
  }

  /**
   * {@link of} for a call whose server is known ({@link callServer}), without its request's
   * attributes: what a call records when its caller's spans are off.
   */
  ofServer(method: string, server: KnownServer, outcome: Outcome): M {
    let byMethod = this.byServer.get(server)
    if (byMethod === undefined) {
      byMethod = new Map()
      this.byServer.set(server, byMethod)
    }
    let byOutcome = byMethod.get(method)
    if (byOutcome === undefined) {
      byOutcome = new Map()
      byMethod.set(method, byOutcome)
    }
    // a success by its status alone; a failure (rarer) by its status and error type
    const key =
      outcome.errorType === undefined
        ? (outcome.status ?? -1)
        : `${outcome.status} ${outcome.errorType}`
    const found = byOutcome.get(key)
    if (found !== undefined) return found
    const request = record<Attributes>()
    request["http.request.method"] = method
    request["server.address"] = server.address
    request["server.port"] = server.port
    const series = this.kept(request, outcome)
    if (series === undefined) return this.make(metricAttributes(request, outcome))
    byOutcome.set(key, series)
    return series
  }
}

/**
 * The server a call to `endpoint` on `baseUrl` reaches, when its origin was seen before and
 * nothing in it needs parsing: an endpoint that is not an absolute URL goes to the base URL's
 * server (`joinUrl`), whatever its path and params. `undefined` otherwise.
 */
export const callServer = (baseUrl: string, endpoint: string): KnownServer | undefined =>
  plainServer(isAbsoluteUrl(endpoint) ? endpoint : baseUrl)

const MAX_SERIES = 512

/** The span whose context a request carries. */
export interface SpanIds {
  readonly traceId: string
  readonly spanId: string
  readonly sampled: boolean
}

/**
 * W3C `traceparent` and compact `b3` for `span` (with its parent's id in `b3`), as Effect's own
 * `HttpClient` writes them.
 */
export const traceHeaders = (
  span: SpanIds,
  parentSpanId: string | undefined
): Readonly<Record<string, string>> => {
  const headers = record<Record<string, string>>()
  headers.b3 = `${span.traceId}-${span.spanId}-${span.sampled ? "1" : "0"}${
    parentSpanId === undefined ? "" : `-${parentSpanId}`
  }`
  headers.traceparent = `00-${span.traceId.padStart(32, "0")}-${span.spanId}-${span.sampled ? "01" : "00"}`
  return headers
}

/** Why a request was sent again. */
export type Resend = "retry" | "redirect"

/** The headers that carry trace context: never to an origin other than the base URL's. */
export const TRACE_HEADERS = ["traceparent", "tracestate", "b3"] as const

/**
 * One call's record of its sends, kept by the request program and read by the line's span: the
 * trace headers its requests to the base URL's origin carry (the pipeline adds them, and a
 * redirect hop to another origin drops them), and each re-send (a retry or a redirect hop), which
 * becomes a span event and, at the end, `http.request.resend_count`.
 */
export class CallTrace {
  /** Requests sent so far, the first included. */
  sends = 0
  /** The trace headers, once the span exists; `undefined` while there is none to propagate. */
  headers: Readonly<Record<string, string>> | undefined = undefined
  /** Records a re-send on the span, once the span exists. */
  onResend: ((reason: Resend, resendCount: number, request: TransportRequest) => void) | undefined =
    undefined

  /** Counts `request`, about to go on the wire; a re-send is recorded. */
  send(request: TransportRequest, reason: Resend): void {
    const resends = this.sends
    this.sends = resends + 1
    if (resends > 0) this.onResend?.(reason, resends, request)
  }
}

/** The attributes of a re-send's span event. */
export const resendAttributes = (resendCount: number, request: TransportRequest): Attributes => ({
  "http.request.resend_count": resendCount,
  "http.request.method": request.method,
  "url.full": redactUrl(request.url)
})

/** The attributes a call's span ends with. */
export const outcomeAttributes = (trace: CallTrace, outcome: Outcome): Attributes => {
  const attributes: Attributes = {}
  if (outcome.status !== undefined) attributes["http.response.status_code"] = outcome.status
  if (outcome.errorType !== undefined) attributes["error.type"] = outcome.errorType
  if (trace.sends > 1) attributes["http.request.resend_count"] = trace.sends - 1
  return attributes
}
