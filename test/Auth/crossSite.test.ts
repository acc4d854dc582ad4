/**
 * Security item 10, SPEC 6.3a: a state-changing request whose session id a browser attaches by
 * itself (cookie, query parameter) is refused cross-site with 403 before the validator is asked.
 * The table (test/Auth/shared/crossSite.ts) over method × where the id is ×
 * `Sec-Fetch-Site`/`Origin`, on a real server. Shared: run on both Effect lines (lineKit.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { AuthContext, optionalAuth, requireAuth, requireUserType } from "../../src/v3/Auth/index.js"
import {
  HttpClient,
  HttpClientRequest,
  HttpServer,
  json,
  makeProbe,
  probeValidator,
  type Route,
  ServerLayer,
  serveRoutes
} from "./lineKit.js"
import { requestOf, rows, type Sent } from "./shared/crossSite.js"

const reached = Effect.succeed(json({ reached: true }))
const routes: ReadonlyArray<Route> = [
  { method: "*", path: "/me", handler: reached.pipe(requireAuth()) },
  {
    method: "*",
    path: "/trusted",
    handler: reached.pipe(requireAuth({ trustedOrigins: ["http://app.example"] }))
  },
  { method: "*", path: "/off", handler: reached.pipe(requireAuth({ csrf: false })) },
  {
    method: "*",
    path: "/feed",
    handler: Effect.map(AuthContext, (context) => json({ guest: context.is_guest })).pipe(
      optionalAuth()
    )
  },
  { method: "*", path: "/typed", handler: reached.pipe(requireUserType("user"), optionalAuth()) }
]

/** Sends one request to the test server; `SAME` becomes the server's own origin. */
const send = (sent: Sent) =>
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    const address = server.address as { readonly port: number }
    const { path, headers } = requestOf(sent, `http://127.0.0.1:${address.port}`)
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.make(sent.method)(path, { headers }))
    const text = yield* response.text
    return {
      status: response.status,
      body: text === "" ? undefined : (JSON.parse(text) as unknown)
    }
  }).pipe(Effect.orDie)

describe("cross-site requests (SPEC 6.3a, security item 10)", () => {
  it.effect.each(rows)("$method, id in $source, $site.name → $status", (row) =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutes(routes, probeValidator(probe))
      const reply = yield* send({
        path: "/me",
        method: row.method,
        source: row.source,
        origin: row.site.origin,
        fetchSite: row.site.fetchSite
      })
      expect(reply.status).toBe(row.status)
      if (row.method !== "HEAD") {
        expect(reply.body).toEqual(
          row.status === 403 ? { error: "Cross-site request refused" } : { reached: true }
        )
      }
      // refused before the validator is asked
      expect(probe.calls).toBe(row.status === 403 ? 0 : 1)
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )

  const evil = { origin: "http://evil.example", fetchSite: "cross-site" } as const

  it.effect("trustedOrigins lets a trusted front end on another origin through", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutes(routes, probeValidator(probe))
      const trusted = yield* send({
        path: "/trusted",
        method: "POST",
        source: "cookie",
        origin: "http://app.example",
        fetchSite: "cross-site"
      })
      expect(trusted.status).toBe(200)
      const other = yield* send({ path: "/trusted", method: "POST", source: "cookie", ...evil })
      expect(other).toEqual({ status: 403, body: { error: "Cross-site request refused" } })
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )

  it.effect("csrf: false turns the check off", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      yield* serveRoutes(routes, probeValidator(probe))
      const reply = yield* send({ path: "/off", method: "DELETE", source: "cookie", ...evil })
      expect(reply).toEqual({ status: 200, body: { reached: true } })
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )

  it.effect(
    "optionalAuth treats a refused cross-site request as a guest; a later guard refuses it",
    () =>
      Effect.gen(function* () {
        const probe = yield* makeProbe
        yield* serveRoutes(routes, probeValidator(probe))
        const feed = yield* send({ path: "/feed", method: "POST", source: "cookie", ...evil })
        expect(feed).toEqual({ status: 200, body: { guest: true } })
        const typed = yield* send({ path: "/typed", method: "POST", source: "query", ...evil })
        expect(typed).toEqual({ status: 403, body: { error: "Cross-site request refused" } })
        expect(probe.calls).toBe(0)
        const sameSite = yield* send({ path: "/typed", method: "POST", source: "cookie" })
        expect(sameSite).toEqual({ status: 200, body: { reached: true } })
      }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )

  it("bad trustedOrigins and csrf throw when the guard is made, naming the option", () => {
    for (const origins of [
      ["https://app.example/path"],
      ["app.example"],
      ["ftp://a.example"],
      [3]
    ]) {
      expect(() => requireAuth({ trustedOrigins: origins as never })).toThrow(
        /requireAuth: options\.trustedOrigins must hold origins/
      )
    }
    expect(() => requireAuth({ trustedOrigins: "https://a.example" as never })).toThrow(
      /options\.trustedOrigins must be an array/
    )
    expect(() => optionalAuth({ csrf: "no" as never })).toThrow(
      /optionalAuth: options\.csrf must be a boolean, got "no"/
    )
    expect(typeof requireAuth({ trustedOrigins: ["https://App.Example:8443/"] })).toBe("function")
  })
})
