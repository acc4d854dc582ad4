/**
 * The guards as `HttpApi` middleware, on a real `@effect/platform-node` server: the pinned answers,
 * `CurrentUser` in handlers, one validation per request, the OpenAPI document, and `HttpApiClient`
 * seeing the refusals as typed errors. Shared: run on both Effect lines (the API and its server are
 * each line's own: httpApiLine.ts); the type tests are per line (httpApiTypes.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { validate } from "@readme/openapi-parser"
import * as Effect from "effect/Effect"
import { HttpApiAuth } from "../../src/v3/Auth/index.js"
import {
  Api,
  ENDPOINT_STATUSES,
  HttpApiClient,
  OpenApi,
  postId,
  withServer
} from "./httpApiLine.js"
import { call, DOWN, HttpClient, HttpClientRequest } from "./lineKit.js"

describe("HttpApiAuth on a real server", () => {
  it.effect("answers the pinned statuses and bodies, and gives handlers CurrentUser", () =>
    withServer((probe) =>
      Effect.gen(function* () {
        const cases: Array<[string, Record<string, string>, number, unknown]> = [
          ["/me", {}, 401, { error: "Session ID required" }],
          ["/me", { "x-session-id": "nope" }, 401, { error: "Invalid session" }],
          ["/me", { "x-session-id": "bad id" }, 401, { error: "Invalid session" }],
          ["/me", { "x-session-id": DOWN }, 500, { error: "Authentication service unavailable" }],
          ["/me", { "x-session-id": "s-user" }, 200, { user_id: "u1", team: "core" }],
          ["/me", { cookie: "session_id=s-user" }, 200, { user_id: "u1", team: "core" }],
          ["/me?session_id=s-ops", {}, 200, { user_id: "o1" }],
          [
            "/stats",
            { "x-session-id": "s-user" },
            403,
            {
              error: "Insufficient permissions. Required user types: ops, admin"
            }
          ],
          ["/stats", { "x-session-id": "s-ops" }, 200, 42],
          ["/stats", {}, 401, { error: "Session ID required" }],
          ["/health", {}, 200, "ok"]
        ]
        for (const [path, headers, status, body] of cases) {
          const reply = yield* call(path, { headers })
          expect([path, headers, reply.status, reply.body]).toEqual([path, headers, status, body])
          if (status !== 200) expect(reply.contentType).toBe("application/json")
          // every answer behind the middleware, its refusals included; none on the open endpoint
          expect([path, reply.cacheControl]).toEqual([
            path,
            path === "/health" ? undefined : "no-store"
          ])
        }
        expect(probe.calls).toBe(7)
      })
    )
  )

  it.effect(
    "a header id wins over cookie and query; an invalid header is not retried with them",
    () =>
      withServer(() =>
        Effect.gen(function* () {
          const reply = yield* call("/me?session_id=s-ops", {
            headers: { "x-session-id": "nope", cookie: "session_id=s-user" }
          })
          expect([reply.status, reply.body]).toEqual([401, { error: "Invalid session" }])
          const header = yield* call("/me?session_id=s-ops", {
            headers: { "x-session-id": "s-user" }
          })
          expect(header.body).toEqual({ user_id: "u1", team: "core" })
        })
      )
  )

  it.effect("checks permissions with one validation per request, administrators pass", () =>
    withServer((probe) =>
      Effect.gen(function* () {
        const refused = yield* call("/posts/7", {
          method: "DELETE",
          headers: { "x-session-id": "s-user" }
        })
        expect([refused.status, refused.body]).toEqual([
          403,
          { error: "Permission required: posts:delete" }
        ])
        expect(probe.calls).toBe(1)
        const allowed = yield* call("/posts/7", {
          method: "DELETE",
          headers: { "x-session-id": "s-ops" }
        })
        expect([allowed.status, allowed.body]).toEqual([200, { removed: "7" }])
        const admin = yield* call("/posts/8", {
          method: "DELETE",
          headers: { "x-session-id": "s-admin" }
        })
        expect(admin.status).toBe(200)
        expect(probe.calls).toBe(3)
      })
    )
  )

  it.effect("a check alone authenticates once and gives handlers CurrentUser", () =>
    withServer((probe) =>
      Effect.gen(function* () {
        const ops = yield* call("/reports", { headers: { "x-session-id": "s-ops" } })
        expect([ops.status, ops.body]).toEqual([200, "o1"])
        expect(probe.calls).toBe(1)
        const user = yield* call("/reports", { headers: { "x-session-id": "s-user" } })
        expect([user.status, user.body]).toEqual([
          403,
          { error: "Insufficient permissions. Required user types: ops, admin" }
        ])
        expect(probe.calls).toBe(2)
        const nobody = yield* call("/reports", { headers: { "x-session-id": "nope" } })
        expect([nobody.status, nobody.body]).toEqual([401, { error: "Invalid session" }])
        expect(probe.calls).toBe(3)
      })
    )
  )

  it.effect("refuses a cross-site POST with a cookie id before validating, allows the header", () =>
    withServer((probe) =>
      Effect.gen(function* () {
        const client = yield* HttpClient.HttpClient
        const post = (headers: Record<string, string>) =>
          client
            .execute(HttpClientRequest.post("/me", { headers }))
            .pipe(
              Effect.flatMap((response) =>
                Effect.map(response.json, (body) => [response.status, body])
              )
            )
        const evil = { origin: "https://evil.example", "sec-fetch-site": "cross-site" }
        expect(yield* post({ ...evil, cookie: "session_id=s-user" })).toEqual([
          403,
          { error: "Cross-site request refused" }
        ])
        expect(probe.calls).toBe(0)
        expect(yield* post({ ...evil, "x-session-id": "s-user" })).toEqual([
          200,
          { user_id: "u1", team: "core" }
        ])
      })
    )
  )

  it.effect("reads only the schemes a middleware was given", () =>
    withServer(() =>
      Effect.gen(function* () {
        expect((yield* call("/whoami", { headers: { "x-token": "s-user" } })).body).toBe("u1")
        const cookie = yield* call("/whoami?session_id=s-user", {
          headers: { cookie: "session_id=s-user" }
        })
        expect([cookie.status, cookie.body]).toEqual([401, { error: "Session ID required" }])
      })
    )
  )

  it.effect("HttpApiClient sees each refusal as a typed error with the pinned text", () =>
    withServer(() =>
      Effect.gen(function* () {
        const withSession = (id: string) =>
          HttpApiClient.make(Api, {
            transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-session-id", id))
          })
        const anonymous = yield* HttpApiClient.make(Api)
        const missing = yield* Effect.flip(anonymous.account.me())
        expect(missing).toBeInstanceOf(HttpApiAuth.Unauthorized)
        expect(missing).toMatchObject({ _tag: "Unauthorized", error: "Session ID required" })
        const user = yield* withSession("s-user")
        expect(yield* user.account.me()).toEqual({ user_id: "u1", team: "core" })
        const forbidden = yield* Effect.flip(user.account.remove(postId("1")))
        expect(forbidden).toBeInstanceOf(HttpApiAuth.Forbidden)
        expect(forbidden).toMatchObject({ error: "Permission required: posts:delete" })
        const down = yield* withSession(DOWN)
        const unavailable = yield* down.account
          .me()
          .pipe(
            Effect.catchTag("AuthenticationUnavailable", (error) => Effect.succeed(error.error))
          )
        expect(unavailable).toBe("Authentication service unavailable")
      })
    )
  )
})

describe("HttpApiAuth in the OpenAPI document", () => {
  const spec = OpenApi.fromApi(Api)

  it("is a valid OpenAPI document (@readme/openapi-parser)", async () => {
    // `validate` dereferences in place: give it a copy
    const document = structuredClone(spec) as unknown as Exclude<
      Parameters<typeof validate>[0],
      string
    >
    const result = await validate(document)
    expect(result.valid ? [] : result.errors).toEqual([])
    expect(result.specification).toBe("OpenAPI")
  })

  it("lists the header, cookie and query schemes, and the header-only middleware's one", () => {
    expect(spec.components.securitySchemes).toEqual({
      "header.X-Session-Id": { type: "apiKey", name: "X-Session-Id", in: "header" },
      "cookie.session_id": { type: "apiKey", name: "session_id", in: "cookie" },
      "query.session_id": { type: "apiKey", name: "session_id", in: "query" },
      "header.X-Token": { type: "apiKey", name: "X-Token", in: "header" }
    })
    expect(spec.paths["/me"]?.get?.security).toEqual([
      { "header.X-Session-Id": [] },
      { "cookie.session_id": [] },
      { "query.session_id": [] }
    ])
    expect(spec.paths["/whoami"]?.get?.security).toEqual([{ "header.X-Token": [] }])
    expect(spec.paths["/health"]?.get?.security).toEqual([])
  })

  it("documents the 401, 403 and 500 answers with their {error} body", () => {
    const responses: Record<string, { content?: Record<string, { schema?: unknown }> }> =
      spec.paths["/posts/{id}"]?.delete?.responses ?? {}
    expect(Object.keys(responses).sort()).toEqual([...ENDPOINT_STATUSES, "401", "403", "500"])
    for (const [status, name] of [
      ["401", "Unauthorized"],
      ["403", "Forbidden"],
      ["500", "AuthenticationUnavailable"]
    ]) {
      const schema = JSON.stringify(responses[status!]?.content?.["application/json"]?.schema)
      expect(schema).toContain(`svc-sdk.Auth.${name}`)
    }
    const schemas = spec.components.schemas
    expect(schemas["svc-sdk.Auth.Unauthorized"]).toMatchObject({
      required: ["error"],
      properties: {
        error: { enum: ["Session ID required", "Invalid session", "Authentication required"] }
      }
    })
    expect(schemas["svc-sdk.Auth.AuthenticationUnavailable"]).toMatchObject({
      properties: { error: { enum: ["Authentication service unavailable"] } }
    })
    expect(JSON.stringify(schemas["svc-sdk.Auth.Forbidden"])).toContain("^Permission required: ")
    for (const name of ["Unauthorized", "Forbidden", "AuthenticationUnavailable"]) {
      const schema = schemas[`svc-sdk.Auth.${name}`] as { properties?: object } | undefined
      expect(Object.keys(schema?.properties ?? {})).toEqual(["error"])
    }
  })
})
