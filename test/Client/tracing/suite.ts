/**
 * The tracing suite (SPEC 4.7), shared by both Effect lines: over every transport, the span tree
 * and attributes a real OpenTelemetry SDK exports (`@effect/opentelemetry`, an in-memory span
 * exporter, a metric reader) for a success, a 404, a timeout, a retried 503 and a cross-origin
 * redirect; trace context to the base URL's origin only, and switchable; spans off with Effect's
 * own switch; the duration histogram; and a property: no exported span, attribute or event holds
 * the session id, whichever header carries it.
 */

import { AsyncLocalStorage } from "node:async_hooks"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { type Context, type ContextManager, context, ROOT_CONTEXT, trace } from "@opentelemetry/api"
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base"
import fc from "fast-check"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"

/** A client's config or a request's options, as the suite gives them (see the conformance suite). */
export type Settings = { readonly [name: string]: unknown }

/** How a call ended, as the suite reads it. */
export interface CallOutcome {
  readonly success: boolean
  readonly status?: number | undefined
  readonly code?: string | undefined
}

/** A data point of the duration histogram. */
export interface DurationPoint {
  readonly attributes: Readonly<Record<string, unknown>>
  readonly count: number
}

/** What a line gives the suite. */
export interface TracingLine {
  readonly name: string
  /** The name of a call's span: `http.client GET` on Effect 3, `GET` on Effect 4. */
  readonly spanName: (method: string) => string
  /** The transports of the Effect API under test, by name. */
  readonly transports: ReadonlyArray<string>
  /**
   * A GET through `transport`'s Effect API, inside a span named `caller`, with the OpenTelemetry
   * SDK as Effect's tracer; `tracerEnabled: false` runs it under `Effect.withTracerEnabled(false)`.
   */
  readonly get: (
    transport: string,
    baseUrl: string,
    config: Settings,
    endpoint: string,
    options?: {
      readonly setSessionId?: string
      readonly tracerEnabled?: boolean
      /** Added with `addRequestInterceptor` before the call. */
      readonly interceptor?: (config: Settings) => Settings
    }
  ) => Promise<CallOutcome>
  /** A GET through the Promise facade. */
  readonly facadeGet: (baseUrl: string, config: Settings, endpoint: string) => Promise<CallOutcome>
  /** The spans exported so far. */
  readonly spans: () => ReadonlyArray<ReadableSpan>
  readonly resetSpans: () => void
  /** The duration histogram's data points, collected by the metric reader now. */
  readonly durations: () => Promise<ReadonlyArray<DurationPoint>>
}

interface Seen {
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
}

interface TestServer {
  readonly origin: string
  readonly port: number
  readonly seen: Array<Seen>
  elsewhere: string
  readonly close: () => Promise<void>
}

/** node:http on 127.0.0.1, port 0: `/ok`, `/missing` (404), `/hang`, `/flaky` (503 twice), `/away`. */
const startServer = async (): Promise<TestServer> => {
  const seen: Array<Seen> = []
  const failures = new Map<string, number>()
  let self: TestServer
  const server = Http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost")
      seen.push({ path: url.pathname, headers: req.headers })
      const json = (status: number, body: unknown, extra = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...extra })
        res.end(JSON.stringify(body))
      }
      switch (url.pathname) {
        case "/ok":
          return json(200, { data: { ok: true } })
        case "/missing":
          return json(404, { error: "No such thing" })
        case "/hang":
          return
        case "/flaky": {
          // 503 for the first two tries of each key, then 200
          const key = url.searchParams.get("key") ?? ""
          const failed = failures.get(key) ?? 0
          if (failed < 2) {
            failures.set(key, failed + 1)
            return json(503, { error: "Busy" }, { "retry-after": "0" })
          }
          return json(200, { data: { tries: failed + 1 } })
        }
        case "/away":
          res.writeHead(302, { location: `${self.elsewhere}/ok` })
          return res.end()
        default:
          return json(404, { error: "Not found" })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const origin = `http://127.0.0.1:${port}`
  self = {
    origin,
    port,
    seen,
    elsewhere: origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return self
}

/** OpenTelemetry's active context on Node's AsyncLocalStorage, for code that asks for its span. */
class StorageContextManager implements ContextManager {
  readonly storage = new AsyncLocalStorage<Context>()
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT
  }
  with<A extends Array<unknown>, F extends (...args: A) => ReturnType<F>>(
    active: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(active, () => fn.call(thisArg, ...args))
  }
  bind<T>(_context: Context, target: T): T {
    return target
  }
  enable(): this {
    return this
  }
  disable(): this {
    this.storage.disable()
    return this
  }
}

const CLIENT = 2 // SpanKind.CLIENT
const ERROR = 2 // SpanStatusCode.ERROR
const OK = 1 // SpanStatusCode.OK

/** Everything a span exports, as text. */
const exported = (span: ReadableSpan): string =>
  JSON.stringify({
    name: span.name,
    attributes: span.attributes,
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
    status: span.status,
    links: span.links.map((link) => link.attributes)
  })

export const tracingSuite = (line: TracingLine): void => {
  describe(`tracing: ${line.name}`, () => {
    let server: TestServer
    let other: TestServer
    const contextManager = new StorageContextManager()
    beforeAll(async () => {
      context.setGlobalContextManager(contextManager)
      server = await startServer()
      other = await startServer()
      server.elsewhere = other.origin
    })
    afterAll(async () => {
      context.disable()
      await server.close()
      await other.close()
    })
    beforeEach(() => {
      line.resetSpans()
      server.seen.length = 0
      other.seen.length = 0
    })

    /** The spans of the last call: the caller's and the client span under it. */
    const callSpans = () => {
      const spans = line.spans()
      const caller = spans.find((span) => span.name === "caller")
      expect(caller).toBeDefined()
      const children = spans.filter(
        (span) => span.parentSpanContext?.spanId === caller!.spanContext().spanId
      )
      expect(children).toHaveLength(1)
      const client = children[0]!
      // nothing else: no second client span (an HttpClient's own) under the call's span
      expect(spans).toHaveLength(2)
      return { caller: caller!, client }
    }

    describe.each(line.transports)("%s", (transport) => {
      const get = (endpoint: string, config: Settings = {}, tracerEnabled = true) =>
        line.get(transport, server.origin, { retryAttempts: 0, ...config }, endpoint, {
          tracerEnabled
        })

      it("a success: a client span under the caller's, with the request's attributes", async () => {
        const outcome = await get("/ok?token=s3cret&page=2")
        expect(outcome).toMatchObject({ success: true, status: 200 })
        const { caller, client } = callSpans()
        expect(client.name).toBe(line.spanName("GET"))
        expect(client.kind).toBe(CLIENT)
        expect(client.spanContext().traceId).toBe(caller.spanContext().traceId)
        expect(client.attributes).toEqual({
          "http.request.method": "GET",
          "url.full": `${server.origin}/ok?token=REDACTED&page=REDACTED`,
          "server.address": "127.0.0.1",
          "server.port": server.port,
          "http.response.status_code": 200
        })
        // ended as a success (with a success that holds no response)
        expect(client.status.code).toBe(OK)
        // the trace context of the call's span went with the request
        const { traceId, spanId } = client.spanContext()
        expect(server.seen[0]!.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`)
        expect(server.seen[0]!.headers.b3).toBe(
          `${traceId}-${spanId}-1-${caller.spanContext().spanId}`
        )
      })

      it("a 404: the status, error.type 404, the span failed", async () => {
        const outcome = await get("/missing")
        expect(outcome).toMatchObject({ success: false, status: 404, code: "HTTP_ERROR" })
        const { client } = callSpans()
        expect(client.attributes).toMatchObject({
          "http.response.status_code": 404,
          "error.type": "404"
        })
        expect(client.status.code).toBe(ERROR)
      })

      it("a timeout: error.type TIMEOUT, no status code", async () => {
        const outcome = await get("/hang", { timeout: 100 })
        expect(outcome).toMatchObject({ success: false, code: "TIMEOUT" })
        const { client } = callSpans()
        expect(client.attributes["error.type"]).toBe("TIMEOUT")
        expect(client.attributes["http.response.status_code"]).toBeUndefined()
        expect(client.status.code).toBe(ERROR)
      })

      it.each([
        ["", {}],
        [", no timeout", { timeout: 0 }]
      ])(
        "a retried 503%s: one span, each re-send an event, http.request.resend_count",
        async (label, extra) => {
          const outcome = await get(`/flaky?key=${transport}${label.length}`, {
            retryAttempts: 2,
            ...extra
          })
          expect(outcome).toMatchObject({ success: true, status: 200 })
          const { client } = callSpans()
          expect(client.attributes).toMatchObject({
            "http.response.status_code": 200,
            "http.request.resend_count": 2
          })
          expect(client.attributes["error.type"]).toBeUndefined()
          expect(client.events.map((event) => [event.name, event.attributes])).toEqual([
            [
              "retry",
              {
                "http.request.resend_count": 1,
                "http.request.method": "GET",
                "url.full": `${server.origin}/flaky?key=REDACTED`
              }
            ],
            [
              "retry",
              {
                "http.request.resend_count": 2,
                "http.request.method": "GET",
                "url.full": `${server.origin}/flaky?key=REDACTED`
              }
            ]
          ])
          // every try carried the call's trace context
          const { traceId, spanId } = client.spanContext()
          expect(server.seen.map((seen) => seen.headers.traceparent)).toEqual(
            Array(3).fill(`00-${traceId}-${spanId}-01`)
          )
        }
      )

      it("a cross-origin redirect: recorded, and no trace context at the other origin", async () => {
        const outcome = await get("/away", { sessionId: "session-abc-123" })
        expect(outcome).toMatchObject({ success: true, status: 200 })
        const { client } = callSpans()
        expect(client.attributes).toMatchObject({
          "url.full": `${server.origin}/away`,
          "http.response.status_code": 200,
          "http.request.resend_count": 1
        })
        expect(client.events.map((event) => [event.name, event.attributes])).toEqual([
          [
            "redirect",
            {
              "http.request.resend_count": 1,
              "http.request.method": "GET",
              "url.full": `${other.origin}/ok`
            }
          ]
        ])
        expect(server.seen[0]!.headers.traceparent).toBeDefined()
        expect(other.seen).toHaveLength(1)
        expect(other.seen[0]!.headers.traceparent).toBeUndefined()
        expect(other.seen[0]!.headers.b3).toBeUndefined()
        expect(other.seen[0]!.headers["x-session-id"]).toBeUndefined()
      })

      it("an absolute endpoint on another origin: no trace context there", async () => {
        const outcome = await get(`${other.origin}/ok`)
        expect(outcome).toMatchObject({ success: true })
        const { client } = callSpans()
        expect(client.attributes["server.port"]).toBe(other.port)
        expect(other.seen[0]!.headers.traceparent).toBeUndefined()
        expect(other.seen[0]!.headers.b3).toBeUndefined()
      })

      it("tracerPropagation: false keeps the span and sends no trace context", async () => {
        await get("/ok", { tracerPropagation: false })
        const { client } = callSpans()
        expect(client.attributes["http.response.status_code"]).toBe(200)
        expect(server.seen[0]!.headers.traceparent).toBeUndefined()
        expect(server.seen[0]!.headers.b3).toBeUndefined()
      })

      it("the application's code runs under the call's span (OpenTelemetry's active span)", async () => {
        let active: string | undefined
        const outcome = await line.get(transport, server.origin, { retryAttempts: 0 }, "/ok", {
          interceptor: (config) => {
            active = trace.getActiveSpan()?.spanContext().spanId
            return config
          }
        })
        expect(outcome).toMatchObject({ success: true })
        const { client } = callSpans()
        expect(active).toBe(client.spanContext().spanId)
      })

      it("Effect.withTracerEnabled(false): no span, no trace context", async () => {
        const outcome = await get("/ok", {}, false)
        expect(outcome).toMatchObject({ success: true })
        expect(line.spans()).toEqual([])
        expect(server.seen[0]!.headers.traceparent).toBeUndefined()
      })

      it("no exported span, attribute or event holds the session id", async () => {
        const visible = fc.stringMatching(/^[\x21-\x7e]{24,64}$/)
        // header names that might carry a session: the default one, and others a config may name
        const header = fc.constantFrom("x-session-id", "x-sid", "session", "x-auth-token")
        await fc.assert(
          fc.asyncProperty(
            visible,
            header,
            fc.constantFrom("/ok", "/missing", "/flaky", "/away"),
            fc.boolean(),
            async (id, sessionHeader, path, viaSetter) => {
              line.resetSpans()
              const key = encodeURIComponent(`${id}-${Math.random()}`)
              await line.get(
                transport,
                server.origin,
                viaSetter
                  ? { retryAttempts: 2, sessionHeader }
                  : { retryAttempts: 2, sessionHeader, sessionId: id },
                // the id in the query too, where an application might put it
                `${path}?key=${key}&sid=${encodeURIComponent(id)}`,
                viaSetter ? { setSessionId: id } : {}
              )
              const spans = line.spans()
              expect(spans.length).toBeGreaterThanOrEqual(2)
              for (const span of spans) {
                const text = exported(span)
                expect(text).not.toContain(id)
                expect(text).not.toContain(JSON.stringify(id).slice(1, -1))
                expect(text).not.toContain(encodeURIComponent(id))
              }
            }
          ),
          { numRuns: 12 }
        )
      })

      it("the duration histogram: seconds, by method, status and server", async () => {
        const before = await line.durations()
        const count = (points: ReadonlyArray<DurationPoint>, status: string, error?: string) =>
          points
            .filter(
              (point) =>
                point.attributes["server.port"] === String(server.port) &&
                point.attributes["http.request.method"] === "GET" &&
                point.attributes["http.response.status_code"] === status &&
                point.attributes["server.address"] === "127.0.0.1" &&
                point.attributes["error.type"] === error
            )
            .reduce((sum, point) => sum + point.count, 0)
        await get("/ok")
        await get("/missing")
        const after = await line.durations()
        expect(count(after, "200") - count(before, "200")).toBe(1)
        expect(count(after, "404", "404") - count(before, "404", "404")).toBe(1)
      })

      it("spans off: the duration histogram still records each call by method, status and server", async () => {
        const points = async (port: number, status: string, error?: string) =>
          (await line.durations())
            .filter(
              (point) =>
                point.attributes["server.port"] === String(port) &&
                point.attributes["server.address"] === "127.0.0.1" &&
                point.attributes["http.request.method"] === "GET" &&
                point.attributes["http.response.status_code"] === status &&
                point.attributes["error.type"] === error &&
                Object.keys(point.attributes).length === (error === undefined ? 4 : 5)
            )
            .reduce((sum, point) => sum + point.count, 0)
        const before = [
          await points(server.port, "200"),
          await points(server.port, "404", "404"),
          await points(other.port, "200")
        ]
        await get("/ok", {}, false)
        await get("/ok", { params: { q: "x" } }, false)
        await get("/missing", {}, false)
        // an absolute endpoint: the server it names, not the base URL's
        await get(`${other.origin}/ok`, {}, false)
        expect(line.spans()).toEqual([])
        expect(await points(server.port, "200")).toBe(before[0]! + 2)
        expect(await points(server.port, "404", "404")).toBe(before[1]! + 1)
        expect(await points(other.port, "200")).toBe(before[2]! + 1)
      })
    })

    it("the Promise facade records nothing: no span, no metric, no trace context", async () => {
      const fresh = await startServer()
      // the metric registry is the process's: an earlier test may have called a server that had
      // this port before, so compare the port's entries before and after the call
      const onPort = async () =>
        (await line.durations()).filter((p) => p.attributes["server.port"] === String(fresh.port))
      try {
        const before = await onPort()
        const outcome = await line.facadeGet(fresh.origin, { retryAttempts: 0 }, "/ok")
        expect(outcome).toMatchObject({ success: true })
        expect(line.spans()).toEqual([])
        expect(fresh.seen[0]!.headers.traceparent).toBeUndefined()
        expect(await onPort()).toEqual(before)
      } finally {
        await fresh.close()
      }
    })
  })
}
