/**
 * The transport conformance suite (SPEC 4.6): the same expectations for every transport — status
 * codes, redirects (a session never reaches another origin), compression, binary and charset,
 * response headers, size limit, timeout, abort, default headers, reason phrases.
 */

import { inspect } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ApiResponse } from "../../../src/core/ApiResponse.js"
import { binaryBytes, type ConformanceServer, startConformanceServer } from "./server.js"

/**
 * A client's config or a request's options, as the suite gives them: the suite runs on both Effect
 * lines, whose `SvcConfig` and `RequestOptions` differ only in Effect's own types.
 */
export type Settings = { readonly [name: string]: unknown }

/** The few methods the suite needs, resolving to an `ApiResponse` whatever happened. */
export interface ClientUnderTest {
  readonly get: (endpoint: string, options?: Settings) => Promise<ApiResponse>
  readonly post: (endpoint: string, body?: unknown, options?: Settings) => Promise<ApiResponse>
  readonly put: (endpoint: string, body?: unknown, options?: Settings) => Promise<ApiResponse>
}

export interface TransportUnderTest {
  readonly name: string
  readonly make: (baseUrl: string, config?: Settings) => ClientUnderTest
  /**
   * The reason phrase the transport reports for a 418 that came without one, where it makes one
   * up: Deno's fetch reports its HTTP library's phrase, whatever the status line said. Otherwise
   * the client's standard phrase is expected.
   */
  readonly reasonOf418?: string
}

interface Echo {
  readonly method: string
  readonly body: string
  readonly headers: Record<string, string>
}

export const conformance = (transport: TransportUnderTest): void => {
  describe(`transport conformance: ${transport.name}`, () => {
    let server: ConformanceServer
    let other: ConformanceServer
    beforeAll(async () => {
      server = await startConformanceServer()
      other = await startConformanceServer()
      server.elsewhere = other.origin
    })
    afterAll(async () => {
      await server.close()
      await other.close()
    })
    const client = (config: Settings = {}) =>
      transport.make(server.origin, { retryAttempts: 0, ...config })

    describe("redirects", () => {
      it.each([301, 302, 303, 307, 308])("%i on GET is followed", async (status) => {
        const response = await client().get(`/redirect/${status}`)
        expect(response).toMatchObject({ success: true, status: 200 })
        expect((response.data as Echo).method).toBe("GET")
      })

      it.each([
        [301, "GET", ""],
        [302, "GET", ""],
        [303, "GET", ""],
        [307, "POST", '{"a":1}'],
        [308, "POST", '{"a":1}']
      ])("%i on POST: %s with body %j", async (status, method, body) => {
        const response = await client().post(`/redirect/${status}`, { a: 1 })
        expect(response.status).toBe(200)
        const echo = response.data as Echo
        expect(echo.method).toBe(method)
        expect(echo.body).toBe(body)
        if (method === "GET") expect(echo.headers["content-type"]).toBeUndefined()
        else expect(echo.headers["content-type"]).toBe("application/json")
      })

      it("303 on PUT becomes a GET without a body", async () => {
        const echo = (await client().put("/redirect/303", "text")).data as Echo
        expect([echo.method, echo.body]).toEqual(["GET", ""])
      })

      const bodyHeaders = {
        "Content-Encoding": "identity",
        "Content-Language": "fr",
        "Content-Location": "/draft"
      }

      it.each([301, 302, 303])(
        "%i turning a POST into a GET drops every request-body header",
        async (status) => {
          const echo = (
            await client().post(`/redirect/${status}`, { a: 1 }, { headers: bodyHeaders })
          ).data as Echo
          expect(echo.method).toBe("GET")
          for (const name of [
            "content-type",
            "content-length",
            "content-encoding",
            "content-language",
            "content-location"
          ]) {
            expect(echo.headers[name]).toBeUndefined()
          }
        }
      )

      it("307 keeps the body and its headers", async () => {
        const echo = (await client().post("/redirect/307", { a: 1 }, { headers: bodyHeaders }))
          .data as Echo
        expect(echo.headers).toMatchObject({
          "content-encoding": "identity",
          "content-language": "fr",
          "content-location": "/draft"
        })
      })

      it("a redirect's body is never waited for: one that never ends", async () => {
        const response = await client({ timeout: 2_000 }).get("/endless-redirect")
        expect(response).toMatchObject({ success: true, status: 200, data: { method: "GET" } })
      })

      it("a redirect's body never counts against maxResponseBytes", async () => {
        const response = await client({ maxResponseBytes: 1024 * 1024 }).get("/large-redirect")
        expect(response).toMatchObject({ success: true, status: 200, data: { method: "GET" } })
      })

      it("one deadline bounds a try, every hop of it included", async () => {
        const before = server.seen.filter((seen) => seen.path.startsWith("/slow-hops/")).length
        const response = await client({ timeout: 250 }).get("/slow-hops/5?delay=100")
        expect(response).toMatchObject({ success: false, status: 0, code: "TIMEOUT" })
        expect(response.error).toBe(
          `Request timed out after 250 ms: GET ${server.origin}/slow-hops/5`
        )
        const hops = server.seen.filter((seen) => seen.path.startsWith("/slow-hops/")).length
        expect(hops - before).toBeLessThanOrEqual(3)
      })

      it("too many redirects is never retried", async () => {
        // counted by path: an earlier test's abandoned hop may still reach the server
        const hops = () => server.seen.filter((seen) => seen.path.startsWith("/hops/")).length
        const before = hops()
        const response = await client({ retryAttempts: 2 }).get("/hops/11")
        expect(response).toMatchObject({ success: false, code: "NETWORK_ERROR" })
        expect(hops() - before).toBe(11)
      })

      it("a hop to another origin carries no session, Authorization or Cookie", async () => {
        const response = await client({ sessionId: "secret-session" }).get("/away", {
          headers: { Authorization: "Bearer t", Cookie: "a=b", "X-Kept": "yes" }
        })
        expect(response).toMatchObject({ success: true, status: 200 })
        const arrived = other.seen[other.seen.length - 1]!
        expect(arrived.headers["x-session-id"]).toBeUndefined()
        expect(arrived.headers.authorization).toBeUndefined()
        expect(arrived.headers.cookie).toBeUndefined()
        expect(arrived.headers["x-kept"]).toBe("yes")
        expect(JSON.stringify(other.seen)).not.toContain("secret-session")
        // the first hop, to the base URL's origin, had them
        expect(server.seen[server.seen.length - 1]!.headers["x-session-id"]).toBe("secret-session")
      })

      it("a scheme-relative Location to another origin is checked too", async () => {
        await client({ sessionId: "secret-session" }).post("/relative-away", { a: 1 })
        const arrived = other.seen[other.seen.length - 1]!
        expect(arrived.method).toBe("POST")
        expect(arrived.headers["x-session-id"]).toBeUndefined()
      })

      it('redirect: "manual" hands the 3xx back with its Location', async () => {
        const response = await client().get("/redirect/302", { redirect: "manual" })
        expect(response).toMatchObject({ success: false, status: 302, code: "HTTP_ERROR" })
        expect(response.error).toBe("HTTP 302 Found")
        expect(response.headers?.location).toBe("/echo")
        const global = await client({ redirect: "manual" }).get("/redirect/301")
        expect(global.status).toBe(301)
      })

      it("10 hops are followed, the 11th fails", async () => {
        expect((await client().get("/hops/10")).status).toBe(200)
        const tooMany = await client().get("/hops/11")
        expect(tooMany).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
        expect(tooMany.error).toMatch(/too many redirects/)
      })

      it("a Location that is not http(s) fails, and is never retried", async () => {
        const before = server.seen.length
        const response = await client({ retryAttempts: 2 }).get("/to-ftp")
        expect(response).toMatchObject({ success: false, code: "NETWORK_ERROR" })
        expect(response.error).toMatch(/not an http\(s\) URL/)
        expect(server.seen.length - before).toBe(1)
      })

      it("a Location with user info (user:password@) fails the same on every transport, never retried", async () => {
        const before = server.seen.length
        const elsewhere = other.seen.length
        const response = await client({ retryAttempts: 2 }).get("/to-user-info")
        expect(response).toMatchObject({ success: false, code: "NETWORK_ERROR" })
        expect(response.error).toMatch(/not an http\(s\) URL without user info/)
        expect(server.seen.length - before).toBe(1)
        expect(other.seen.length).toBe(elsewhere)
      })
    })

    describe("where a request may go (SPEC 4.3.1, 4.5)", () => {
      it("Authorization, Cookie and Proxy-Authorization never go to another origin", async () => {
        const before = other.seen.length
        const response = await client({
          sessionId: "secret-session",
          headers: { Authorization: "Bearer from-config" }
        }).get(`${other.origin}/echo`, {
          headers: { Cookie: "a=b", "proxy-authorization": "Basic eA==", "X-Kept": "yes" }
        })
        expect(response).toMatchObject({ success: true, status: 200 })
        expect(other.seen.length - before).toBe(1)
        const arrived = other.seen[other.seen.length - 1]!.headers
        expect(arrived.authorization).toBeUndefined()
        expect(arrived.cookie).toBeUndefined()
        expect(arrived["proxy-authorization"]).toBeUndefined()
        expect(arrived["x-session-id"]).toBeUndefined()
        expect(arrived["x-kept"]).toBe("yes")
        expect(JSON.stringify(other.seen)).not.toMatch(/secret-session|from-config|eA==/)
      })

      it("a Host header is left out: the request goes to the URL's host, whose origin rules were checked", async () => {
        await client({ sessionId: "secret-session" }).get("/echo", {
          headers: { Host: "other.example" }
        })
        const arrived = server.seen[server.seen.length - 1]!.headers
        expect(arrived.host).toBe(new URL(server.origin).host)
        expect(arrived["x-session-id"]).toBe("secret-session")
      })

      it("they still go to the base URL's origin, given as an absolute URL", async () => {
        await client({ headers: { Authorization: "Bearer t" } }).get(`${server.origin}/echo`, {
          headers: { Cookie: "a=b" }
        })
        const arrived = server.seen[server.seen.length - 1]!.headers
        expect([arrived.authorization, arrived.cookie]).toEqual(["Bearer t", "a=b"])
      })

      it.each([
        'data:application/json,{"pwned":true}',
        "blob:ORIGIN/x",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "ftp://127.0.0.1/x"
      ])("%s is INVALID_REQUEST, nothing sent", async (endpoint) => {
        const before = server.seen.length
        const response = await client({ headers: { Authorization: "Bearer t" } }).get(
          endpoint.replace("ORIGIN", server.origin)
        )
        expect(response).toMatchObject({ success: false, status: 0, code: "INVALID_REQUEST" })
        expect(response.error).toMatch(
          /^endpoint must be an http: or https: URL, got a "\w+:" URL$/
        )
        expect(response.data).toBeUndefined()
        expect(server.seen.length).toBe(before)
      })

      it("a header whose value is undefined or null is left out", async () => {
        const response = await client({ headers: { "X-Config": undefined } }).get("/echo", {
          headers: { "X-Trace": undefined, "X-Null": null, "X-Kept": "yes" }
        })
        expect(response).toMatchObject({ success: true, status: 200 })
        const sent = (response.data as Echo).headers
        expect(sent["x-kept"]).toBe("yes")
        expect(Object.keys(sent)).not.toContain("x-trace")
        expect(Object.keys(sent)).not.toContain("x-null")
        expect(Object.keys(sent)).not.toContain("x-config")
      })
    })

    describe("retry", () => {
      const asked = (path: string) => server.seen.filter((seen) => seen.path === path).length

      it("a 503 on a GET is retried, and the retry's answer is the result", async () => {
        const response = await client({ retryAttempts: 2 }).get("/flaky/get")
        expect(response).toMatchObject({ success: true, status: 200, data: { method: "GET" } })
        expect(asked("/flaky/get")).toBe(2)
      })

      it("a POST is retried only with an Idempotency-Key", async () => {
        const once = await client({ retryAttempts: 2 }).post("/flaky/post", { a: 1 })
        expect(once).toMatchObject({ success: false, status: 503, code: "HTTP_ERROR" })
        expect(asked("/flaky/post")).toBe(1)
        const keyed = await client({ retryAttempts: 2 }).post(
          "/flaky/keyed",
          { a: 1 },
          { headers: { "Idempotency-Key": "k-1" } }
        )
        expect(keyed).toMatchObject({ success: true, status: 200, data: { body: '{"a":1}' } })
        expect(asked("/flaky/keyed")).toBe(2)
      })
    })

    describe("messages", () => {
      it("NETWORK_ERROR names the method and the URL without its query", async () => {
        const closed = await startConformanceServer()
        await closed.close()
        const errors: Array<unknown> = []
        const response = await transport
          .make(closed.origin, {
            retryAttempts: 0,
            onError: (error: unknown) => errors.push(error)
          })
          .get("/x?token=secret#frag")
        // nor does the error object hold it, in any field
        expect(errors).toHaveLength(1)
        expect(JSON.stringify(errors[0])).not.toMatch(/secret|frag/)
        expect(inspect(errors[0], { depth: 1 })).not.toMatch(/token=secret|#frag/)
        expect(response).toMatchObject({ success: false, status: 0, code: "NETWORK_ERROR" })
        expect(response.error).toMatch(
          /^Network error: request failed \(.+\): GET http:\/\/127\.0\.0\.1:\d+\/x$/
        )
        expect(response.error).toContain(`GET ${closed.origin}/x`)
        expect(response.error).not.toContain("secret")
      })

      it("a URL with user info is refused, on every transport, and its password goes nowhere", async () => {
        const before = server.seen.length
        const errors: Array<unknown> = []
        const response = await client({ onError: (error: unknown) => errors.push(error) }).get(
          `http://user:PASSWORD@${new URL(server.origin).host}/echo`
        )
        expect(response).toMatchObject({ success: false, code: "INVALID_REQUEST" })
        expect(response.error).toMatch(/^endpoint must not hold user info/)
        expect(JSON.stringify([response, errors])).not.toContain("PASSWORD")
        expect(server.seen.length).toBe(before)
      })

      it("TIMEOUT names the method and the URL without its query", async () => {
        const response = await client({ timeout: 50 }).get("/hang?token=secret")
        expect(response.error).toBe(`Request timed out after 50 ms: GET ${server.origin}/hang`)
      })
    })

    describe("bodies", () => {
      it("a Blob without a type is sent without a Content-Type, as fetch does", async () => {
        const untyped = (await client().post("/echo", new Blob(["raw"]))).data as Echo
        expect(untyped.body).toBe("raw")
        expect(untyped.headers["content-type"]).toBeUndefined()
        const typed = (await client().post("/echo", new Blob(["<a/>"], { type: "text/xml" })))
          .data as Echo
        expect(typed.headers["content-type"]).toBe("text/xml")
      })

      it.each(["gzip", "deflate", "br"])("a %s body is decompressed", async (coding) => {
        const response = await client().get(`/compressed?coding=${coding}`)
        expect(response.data).toEqual({ compressed: true, text: "é".repeat(100) })
        const accept = server.seen[server.seen.length - 1]!.headers["accept-encoding"]
        expect(accept).toMatch(/gzip/)
        expect(accept).toMatch(/br/)
      })

      it("a FormData body goes as multipart, its boundary in the Content-Type", async () => {
        const form = new FormData()
        form.append("name", "Ada")
        form.append("file", new Blob(["hello"], { type: "text/plain" }), "a.txt")
        const echo = (await client().post("/echo", form)).data as Echo
        const type = echo.headers["content-type"] ?? ""
        expect(type).toMatch(/^multipart\/form-data; ?boundary=[^;\s]+$/)
        // read back with that boundary, as a server would
        const parsed = await new Response(echo.body, {
          headers: { "content-type": type }
        }).formData()
        expect(parsed.get("name")).toBe("Ada")
        const file = parsed.get("file") as File
        // Bun gives a text Blob its charset: text/plain;charset=utf-8
        const mediaType = file.type.split(";")[0]
        expect([file.name, mediaType, await file.text()]).toEqual(["a.txt", "text/plain", "hello"])
      })

      it("binary bodies arrive as the bytes sent", async () => {
        const response = await client().get("/bytes")
        expect(response.data).toBeInstanceOf(Uint8Array)
        expect(Array.from(response.data as Uint8Array)).toEqual(Array.from(binaryBytes))
      })

      it("text is decoded with the response's charset", async () => {
        expect((await client().get("/latin1")).data).toBe("café")
      })

      it.each([
        ["application/json-seq", '\u001e{"a":1}\n\u001e{"a":2}\n'],
        ["application/geo+json-seq", '\u001e{"a":1}\n'],
        ["application/x-ndjson", '{"a":1}\n{"a":2}\n'],
        ["application/jsonl", '{"a":1}\n{"a":2}\n']
      ])("%s is text, never parsed as one JSON value", async (type, body) => {
        const query = `?type=${encodeURIComponent(type)}&body=${encodeURIComponent(body)}`
        expect((await client().get(`/typed${query}`)).data).toBe(body)
      })

      it.each([
        ["bytes", Uint8Array],
        ["blob", Blob]
      ] as const)("responseType %s", async (responseType, type) => {
        const response = await client().get("/headers", { responseType })
        expect(response.data).toBeInstanceOf(type)
      })

      it('responseType "json" on a body that is not JSON is a DECODE_ERROR', async () => {
        const response = await client().get("/latin1", { responseType: "json" })
        expect(response).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
        // no schema was given: the message says what is wrong with the body, not with a schema
        expect(!response.success && response.error).toMatch(
          /^Response could not be decoded: the body is not JSON: /
        )
        expect(response.headers?.["content-type"]).toBe("text/plain; charset=iso-8859-1")
      })

      it("maxResponseBytes stops a larger body", async () => {
        const limited = client({ maxResponseBytes: 1000 })
        expect((await limited.get("/large?n=1000")).success).toBe(true)
        const response = await limited.get("/large?n=5000")
        // the response came, with its status: only its body was too large
        expect(response).toMatchObject({ success: false, status: 200, code: "RESPONSE_TOO_LARGE" })
        expect(response.error).toBe("Response body larger than 1000 bytes (maxResponseBytes)")
      })

      it("maxResponseBytes counts decompressed bytes (a gzip bomb)", async () => {
        const response = await client({ maxResponseBytes: 64 * 1024 }).get("/bomb")
        expect(response).toMatchObject({ success: false, code: "RESPONSE_TOO_LARGE" })
      })
    })

    describe("headers and statuses", () => {
      it("every response carries its headers, lower-case, failures included", async () => {
        const ok = await client().get("/headers")
        expect(ok.headers).toMatchObject({ etag: '"v1"', "x-total-count": "42" })
        const missing = await client().get("/missing")
        expect(missing).toMatchObject({ success: false, status: 404, error: "No such thing" })
        expect(missing.headers?.["x-request-id"]).toBe("r-1")
      })

      it("the default request headers", async () => {
        await client().get("/echo")
        const sent = server.seen[server.seen.length - 1]!.headers
        expect(sent.accept).toBe("application/json, text/plain, */*")
        // what every transport decodes, in every runtime: not deflate, which the fetch of Deno
        // and workerd hands over undecoded
        expect(sent["accept-encoding"]).toBe("gzip, br")
      })

      it("no trace context goes to another origin", async () => {
        await client().get("/away")
        const arrived = other.seen[other.seen.length - 1]!.headers
        expect(arrived.traceparent).toBeUndefined()
        expect(arrived.b3).toBeUndefined()
      })

      it("a string body says it is UTF-8 text; JSON is sent as a string", async () => {
        const text = (await client().post("/echo", "héllo")).data as Echo
        expect(text.headers["content-type"]).toBe("text/plain;charset=UTF-8")
        expect(text.body).toBe("héllo")
        const json = (await client().post("/echo", { a: "é" })).data as Echo
        expect(json.headers["content-length"]).toBe(String(Buffer.byteLength('{"a":"é"}')))
      })

      it("an HTTP failure without a reason phrase gets the standard one", async () => {
        expect((await client().get("/teapot")).error).toBe(
          `HTTP 418 ${transport.reasonOf418 ?? "I'm a Teapot"}`
        )
      })
    })

    describe("time and aborts", () => {
      it("a hung response times out", async () => {
        const response = await client({ timeout: 50 }).get("/hang")
        expect(response).toMatchObject({ success: false, status: 0, code: "TIMEOUT" })
      })

      it("the caller's signal aborts at once", async () => {
        const controller = new AbortController()
        const pending = client().get("/hang", { signal: controller.signal })
        setTimeout(() => controller.abort(), 20)
        expect(await pending).toMatchObject({ success: false, status: 0, code: "ABORTED" })
      })
    })
  })
}
