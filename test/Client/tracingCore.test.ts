/**
 * What a call's span and metric say, written once for both lines (src/core/tracing.ts): URL
 * redaction, the request attributes, `error.type`, the trace context headers.
 */
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import {
  errorType,
  metricAttributes,
  redactUrl,
  requestAttributes,
  traceHeaders
} from "../../src/core/tracing.js"
import { appendParams, joinUrl } from "../../src/core/url.js"

describe("redactUrl", () => {
  it.each([
    ["http://h/x", "http://h/x"],
    ["http://h/x?a=1&b=two&a=3", "http://h/x?a=REDACTED&b=REDACTED&a=REDACTED"],
    ["http://h/x?flag&k=", "http://h/x?flag&k=REDACTED"],
    ["https://h:8443/x?token=s#frag", "https://h:8443/x?token=REDACTED"],
    ["http://h/x?", "http://h/x"],
    ["not a url?secret=1", "not a url"]
  ])("%s → %s", (url, redacted) => {
    expect(redactUrl(url)).toBe(redacted)
  })
})

describe("requestAttributes", () => {
  it.each([
    ["http://127.0.0.1:8080/a", "127.0.0.1", 8080, "http://127.0.0.1:8080/a"],
    ["http://example.com/a", "example.com", 80, "http://example.com/a"],
    ["https://example.com/a?q=1", "example.com", 443, "https://example.com/a?q=REDACTED"],
    ["http://[::1]:3000/a", "::1", 3000, "http://[::1]:3000/a"],
    ["HTTP://Example.COM/a", "example.com", 80, "http://example.com/a"],
    ["http://h/a b", "h", 80, "http://h/a%20b"]
  ])("%s", (url, address, port, full) => {
    // twice: the second time from the servers already seen
    for (let i = 0; i < 2; i++) {
      expect(requestAttributes("GET", url)).toEqual({
        "http.request.method": "GET",
        "url.full": full,
        "server.address": address,
        "server.port": port
      })
    }
  })

  it("the quick path says what parsing says", () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9._~-]{0,8}$/)
    fc.assert(
      fc.property(
        fc.constantFrom("http://h.test", "https://h.test:8443", "http://127.0.0.1:9"),
        fc.array(segment, { maxLength: 4 }),
        (origin, segments) => {
          const url = `${origin}/${segments.join("/")}`
          const parsed = new URL(url)
          expect(requestAttributes("GET", url)["url.full"]).toBe(parsed.href)
        }
      )
    )
  })
})

describe("the duration metric without the request's attributes (spans off)", () => {
  // the module afresh (a query makes it another module): its servers seen are the process's, and
  // other files sharing this worker may have filled them (it keeps 64 origins)
  let core: typeof import("../../src/core/tracing.js")
  beforeAll(async () => {
    const fresh: string = "../../src/core/tracing.js?fresh"
    core = (await import(fresh)) as typeof core
  })

  const endpoint = fc.oneof(
    fc.stringMatching(/^\/{0,3}[a-zA-Z0-9._~%@:?#=&-]{0,12}$/),
    fc.constantFrom("http://other.test:9/x", "https://other.test/y?q=1", "HTTP://Other.Test:81")
  )

  it("a call's server is the one its URL names", () => {
    let known = 0
    fc.assert(
      fc.property(
        fc.constantFrom("http://h.test", "https://h.test:8443/api", "http://127.0.0.1:9/v1/"),
        endpoint,
        fc.constantFrom(undefined, { q: "x" }),
        (baseUrl, path, params) => {
          const url = appendParams(joinUrl(baseUrl, path), params)
          // a first call with spans on has seen the origin
          const attributes = core.requestAttributes("GET", url)
          core.requestAttributes("GET", baseUrl)
          const server = core.callServer(baseUrl, path)
          if (server === undefined) return
          known++
          expect([server.address, server.port]).toEqual([
            attributes["server.address"],
            attributes["server.port"]
          ])
        }
      ),
      { numRuns: 300 }
    )
    expect(known).toBeGreaterThan(100)
  })

  it("records in the series its attributes name, a success by status, a failure by its error too", () => {
    const made: Array<Readonly<Record<string, string>>> = []
    const series = new core.DurationSeries((attributes) => {
      made.push(attributes)
      return { attributes }
    })
    const url = "http://h.test:81/x"
    // the origin seen once: its server is then known
    core.requestAttributes("GET", url)
    const server = core.callServer("http://h.test:81", "/x")!
    const ok = { status: 200, errorType: undefined }
    const failed = { status: 200, errorType: "DECODE_ERROR" }
    expect(series.ofServer("GET", server, ok)).toBe(
      series.of(core.requestAttributes("GET", url), ok)
    )
    expect(series.ofServer("GET", server, ok)).toBe(series.ofServer("GET", server, ok))
    expect(series.ofServer("GET", server, failed)).not.toBe(series.ofServer("GET", server, ok))
    expect(series.ofServer("POST", server, ok)).not.toBe(series.ofServer("GET", server, ok))
    expect(series.ofServer("GET", server, { status: undefined, errorType: "TIMEOUT" })).toEqual({
      attributes: {
        "http.request.method": "GET",
        "server.address": "h.test",
        "server.port": "81",
        "error.type": "TIMEOUT"
      }
    })
    expect(made).toHaveLength(4)
  })
})

describe("errorType", () => {
  it("is the status for an HTTP error, the code otherwise", () => {
    expect(errorType({ code: "HTTP_ERROR", status: 404 })).toBe("404")
    expect(errorType({ code: "TIMEOUT" })).toBe("TIMEOUT")
    expect(errorType({ code: "RESPONSE_TOO_LARGE", status: 200 })).toBe("RESPONSE_TOO_LARGE")
  })

  it("the metric's attributes are strings", () => {
    expect(
      metricAttributes(requestAttributes("GET", "http://h:81/x"), {
        status: 503,
        errorType: "503"
      })
    ).toEqual({
      "http.request.method": "GET",
      "server.address": "h",
      "server.port": "81",
      "http.response.status_code": "503",
      "error.type": "503"
    })
  })
})

describe("traceHeaders", () => {
  it("writes traceparent and b3 as Effect's HttpClient does", () => {
    const span = { traceId: "a".repeat(32), spanId: "b".repeat(16), sampled: true }
    expect(traceHeaders(span, "c".repeat(16))).toEqual({
      b3: `${"a".repeat(32)}-${"b".repeat(16)}-1-${"c".repeat(16)}`,
      traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01`
    })
    expect(traceHeaders({ ...span, sampled: false }, undefined)).toEqual({
      b3: `${"a".repeat(32)}-${"b".repeat(16)}-0`,
      traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-00`
    })
  })
})
