import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isEnvelope } from "../../src/core/response.js"
import { createSvc } from "../../src/v3/Client/index.js"
import { json, type Reply, startServer, type TestServer } from "./server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const answering = (reply: Reply) => {
  server.script = () => reply
  return createSvc(server.origin, { retryAttempts: 0 })
}

describe("response parsing", () => {
  it("parses JSON when the content type says JSON", async () => {
    const response = await answering(json([{ id: 1 }])).get("/")
    expect(response).toEqual({
      success: true,
      status: 200,
      data: [{ id: 1 }],
      headers: expect.objectContaining({ "content-type": "application/json" })
    })
  })

  it("accepts +json media types", async () => {
    const svc = answering({
      body: '{"a":1}',
      headers: { "content-type": "application/problem+json" }
    })
    expect((await svc.get("/")).data).toEqual({ a: 1 })
  })

  it("keeps text as text", async () => {
    const svc = answering({ body: "hello", headers: { "content-type": "text/plain" } })
    expect(await svc.get("/")).toEqual({
      success: true,
      status: 200,
      data: "hello",
      headers: expect.objectContaining({ "content-type": "text/plain" })
    })
  })

  it("a 2xx JSON body that fails to parse becomes the raw text", async () => {
    const svc = answering({ body: "{not json", headers: { "content-type": "application/json" } })
    expect(await svc.get("/")).toEqual({
      success: true,
      status: 200,
      data: "{not json",
      headers: expect.objectContaining({ "content-type": "application/json" })
    })
  })

  it.each([204, 205])("%i has no data", async (status) => {
    const response = await answering({ status }).delete("/x")
    expect(response).toEqual({ success: true, status, headers: expect.any(Object) })
  })

  it("an empty 200 body has no data", async () => {
    const response = await answering({
      status: 200,
      body: "",
      headers: { "content-type": "application/json" }
    }).get("/")
    expect(response).toEqual({
      success: true,
      status: 200,
      headers: expect.objectContaining({ "content-type": "application/json" })
    })
  })

  it("success is true exactly for 2xx", async () => {
    for (const status of [200, 201, 202, 299]) {
      expect((await answering(json({}, status)).get("/")).success).toBe(true)
    }
    for (const status of [301, 400, 404, 418, 500]) {
      const response = await answering({ status, body: "" }).get("/")
      expect(response.success).toBe(false)
      expect(response.status).toBe(status)
    }
  })
})

describe('responseType "json" on a body that does not parse', () => {
  const html = { "content-type": "text/html" }

  it("a 2xx: DECODE_ERROR with its status, saying the body is not JSON", async () => {
    const svc = answering({ body: "<p>hi</p>", headers: html })
    const response = await svc.get("/", { responseType: "json" })
    expect(response).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
    expect(!response.success && response.error).toMatch(
      /^Response could not be decoded: the body is not JSON: /
    )
  })

  it("a non-2xx: its status's HTTP_ERROR, the body's text as data", async () => {
    const svc = answering({ status: 403, body: "<p>no</p>", headers: html })
    expect(await svc.get("/", { responseType: "json" })).toMatchObject({
      success: false,
      status: 403,
      code: "HTTP_ERROR",
      error: "HTTP 403 Forbidden",
      data: "<p>no</p>"
    })
  })

  it("a retryable status is retried, as with any other body (a proxy's HTML 503)", async () => {
    let answered = 0
    server.script = () =>
      answered++ === 0
        ? { status: 503, body: "<p>busy</p>", headers: { ...html, "retry-after": "0" } }
        : json({ ok: true })
    const before = server.requests.length
    const svc = createSvc(server.origin, { retryAttempts: 1 })
    expect(await svc.get("/", { responseType: "json" })).toMatchObject({
      success: true,
      status: 200,
      data: { ok: true }
    })
    expect(server.requests.length - before).toBe(2)
  })
})

describe("envelopes", () => {
  it("a success is a plain object, its fields in the envelope's order", async () => {
    const svc = answering(
      json({ success: true, data: { id: 1 }, message: "ok", meta: { page: 1 }, error: "none" })
    )
    const response = await svc.get("/")
    expect(Object.getPrototypeOf(response)).toBe(Object.prototype)
    expect(Object.keys(response)).toEqual([
      "success",
      "status",
      "data",
      "message",
      "meta",
      "error",
      "headers"
    ])
    expect(structuredClone(response)).toStrictEqual(response)
  })

  it("lifts data, message and meta", async () => {
    const svc = answering(
      json({ success: true, data: [1], message: "ok", meta: { page: 2, total: 10 }, status: 200 })
    )
    expect(await svc.get("/")).toEqual({
      success: true,
      status: 200,
      data: [1],
      message: "ok",
      meta: { page: 2, total: 10 },
      headers: expect.objectContaining({ "content-type": "application/json" })
    })
  })

  it("keeps any other object as data", async () => {
    const body = { data: 1, extra: true }
    expect((await answering(json(body)).get("/")).data).toEqual(body)
    expect(isEnvelope({ message: "only message" })).toBe(false)
    expect(isEnvelope({ error: "x" })).toBe(true)
    expect(isEnvelope([])).toBe(false)
    // a body of bytes is never an envelope, whatever own keys it carries (and its bytes are
    // never listed: an 8 MB download used to make 8 million keys)
    expect(isEnvelope(Object.assign(new Uint8Array(0), { data: 1 }))).toBe(false)
    expect(isEnvelope(Object.assign(Object.create(null), { data: 1 }))).toBe(true)
  })

  it("success follows the status, not the envelope", async () => {
    expect((await answering(json({ success: false, data: 1 })).get("/")).success).toBe(true)
    const failed = await answering(json({ success: true, data: 1 }, 400)).get("/")
    expect(failed).toMatchObject({ success: false, status: 400, data: 1, code: "HTTP_ERROR" })
  })

  it("error text: the envelope's error, else its message, else HTTP <status> <text>", async () => {
    expect((await answering(json({ error: "Bad thing", message: "m" }, 400)).get("/")).error).toBe(
      "Bad thing"
    )
    const withMessage = await answering(json({ success: false, message: "Not here" }, 404)).get("/")
    expect(withMessage).toMatchObject({
      error: "Not here",
      message: "Not here",
      code: "HTTP_ERROR"
    })
    expect((await answering({ status: 404, body: "" }).get("/")).error).toBe("HTTP 404 Not Found")
    // the reason phrase the server sent (Node's for an unregistered status is "unknown")
    expect((await answering({ status: 499, body: "nope" }).get("/")).error).toBe("HTTP 499 unknown")
    // one the transport does not give is filled in from the registry
    expect((await answering({ status: 418, body: "" }).get("/")).error).toBe(
      "HTTP 418 I'm a Teapot"
    )
  })
})
