import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { appendParams, joinUrl } from "../../src/core/url.js"
import { createSvc, SvcClient } from "../../src/v3/Client/index.js"
import { startServer, type TestServer } from "./server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer()
})
afterAll(() => server.close())

const last = () => server.requests[server.requests.length - 1]!

describe("URL joining", () => {
  it.each([
    ["http://h/api/v1", "/users"],
    ["http://h/api/v1/", "users"],
    ["http://h/api/v1/", "/users"],
    ["http://h/api/v1", "users"]
  ])("%s + %s keeps the base path", (base, endpoint) => {
    expect(joinUrl(base, endpoint)).toBe("http://h/api/v1/users")
  })

  it.each([
    ["http://h/foo", "//bar"],
    ["http://h/foo//", "/bar"],
    ["http://h/foo/", "//bar"],
    ["http://h/foo///", "///bar"]
  ])("%s + %s counts the slashes where they meet once (as ky)", (base, endpoint) => {
    expect(joinUrl(base, endpoint)).toBe("http://h/foo/bar")
  })

  it.each([
    ["http://h/api/", "?a=1", "http://h/api/?a=1"],
    ["http://h/api", "?a=1", "http://h/api?a=1"],
    ["http://h/api/", "#top", "http://h/api/#top"],
    ["http://h/api/", "", "http://h/api/"]
  ])(
    "%s + %j is the base URL as it is, with the endpoint's query (as ky)",
    (base, endpoint, url) => {
      expect(joinUrl(base, endpoint)).toBe(url)
    }
  )

  it("sends a query-only endpoint to the base URL's own path, its trailing slash kept", async () => {
    const svc = createSvc(`${server.origin}/api/v1/`)
    await svc.get("?q=1")
    expect(last().path).toBe("/api/v1/")
    expect(last().query.get("q")).toBe("1")
  })

  it("an endpoint starting with // never names another host", () => {
    expect(new URL(joinUrl("http://h", "//evil.example/x")).host).toBe("h")
    expect(new URL(joinUrl("http://h/api", "//evil.example/x")).host).toBe("h")
  })

  it("uses an absolute endpoint URL as it is", () => {
    expect(joinUrl("http://h/api", "https://other.example/x")).toBe("https://other.example/x")
  })

  it("sends the joined path to the server", async () => {
    const svc = createSvc(`${server.origin}/api/v1/`)
    await svc.get("users/42")
    expect(last().path).toBe("/api/v1/users/42")
  })

  it.each(["not a url", "/relative/path", "ftp://h/x", ""])(
    "rejects base URL %j with a TypeError naming it",
    (base) => {
      expect(() => createSvc(base)).toThrow(TypeError)
      expect(() => new SvcClient(base)).toThrow(/baseUrl/)
    }
  )

  it.each(["http://h/api?key=secret", "http://h/api?", "http://h/api#top"])(
    "rejects base URL %j, which endpoints would join wrongly, without quoting it",
    (base) => {
      const message =
        "baseUrl must not hold a query or a fragment: give query parameters per request (params)"
      expect(() => createSvc(base)).toThrow(new TypeError(message))
      expect(() => new SvcClient(base)).toThrow(message)
    }
  )

  it.each(["http://h/api\n", " http://h/api ", "http://h/api \t"])(
    "a base URL %j with whitespace around it, as the URL parser reads it: trimmed",
    async (base) => {
      const svc = createSvc(base.replace("http://h", server.origin))
      expect(svc.getBaseUrl()).toBe(`${server.origin}/api`)
      await svc.get("/users")
      expect(last().path).toBe("/api/users")
    }
  )

  it.each([
    ["ftp://user:secret@h/x?key=k", 'baseUrl must be an http: or https: URL, got a "ftp:" URL'],
    ["htp//user:secret@h", "baseUrl must be an absolute http: or https: URL"],
    [
      "http://user:secret@h/",
      "baseUrl must not hold user info (user:password@): send credentials in an Authorization header"
    ]
  ])("names a bad base URL %j by its scheme at most, never its credentials", (base, message) => {
    expect(() => createSvc(base)).toThrow(new TypeError(message))
  })

  it.each([
    [
      "localhost:3000",
      'baseUrl must be an http: or https: URL, got a "localhost:" URL (no "http://")'
    ],
    ["127.0.0.1:3000/api", 'baseUrl must be an absolute http: or https: URL (no "http://")']
  ])("a base URL %j without its scheme says what it lacks", (base, message) => {
    expect(() => createSvc(base)).toThrow(new TypeError(message))
  })

  it("rejects a non-string base URL", () => {
    expect(() => createSvc(42 as unknown as string)).toThrow(TypeError)
  })
})

describe("params", () => {
  it("encodes arrays as repeated keys, drops null/undefined, sends Dates as ISO", async () => {
    const svc = createSvc(server.origin)
    const when = new Date(Date.UTC(2024, 0, 2, 3, 4, 5))
    await svc.get("/search", {
      params: { tag: ["a", "b c"], page: 2, on: true, gone: null, missing: undefined, since: when }
    })
    const query = last().query
    expect(query.getAll("tag")).toEqual(["a", "b c"])
    expect(query.get("page")).toBe("2")
    expect(query.get("on")).toBe("true")
    expect(query.has("gone")).toBe(false)
    expect(query.has("missing")).toBe(false)
    expect(query.get("since")).toBe("2024-01-02T03:04:05.000Z")
  })

  it("extends an endpoint that already has a query with &", async () => {
    const svc = createSvc(server.origin)
    await svc.get("/items?sort=name", { params: { page: 3 } })
    expect(last().query.toString()).toBe("sort=name&page=3")
    expect(appendParams("/a?x=1", { y: "2" })).toBe("/a?x=1&y=2")
    expect(appendParams("/a?", { y: "2" })).toBe("/a?y=2")
    expect(appendParams("/a#frag", { y: "2" })).toBe("/a?y=2#frag")
  })

  it("percent-encodes values so the server reads back what was given", async () => {
    const svc = createSvc(server.origin)
    await svc.get("/x", { params: { q: "a&b=c?d/é %" } })
    expect(last().query.get("q")).toBe("a&b=c?d/é %")
  })

  it("leaves the URL alone when no param survives", () => {
    expect(appendParams("/a", { x: null, y: [] })).toBe("/a")
  })
})

describe("a base URL with user info", () => {
  it("is refused at construction, on every face, without the password in the message", () => {
    const base = "http://user:PASSWORD@127.0.0.1:1/api"
    for (const make of [
      () => createSvc(base),
      () => new SvcClient(base),
      () => SvcClient.layerDefault(base),
      () => SvcClient.layer(base)
    ]) {
      expect(make).toThrow(TypeError)
      expect(make).toThrow(
        "baseUrl must not hold user info (user:password@): send credentials in an Authorization header"
      )
    }
  })
})
