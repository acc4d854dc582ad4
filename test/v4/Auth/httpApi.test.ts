/**
 * The guards as `effect/http-api` middleware (`HttpApiMiddleware.Service`), on a real
 * `@effect/platform-node` server (Effect 4): the pinned answers, `CurrentUser` in handlers, one
 * validation per request, the OpenAPI document, `HttpApiClient` seeing the refusals as typed
 * errors, and `HttpApiAuth.Optional` giving guests an `AuthContext`.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { validate } from "@readme/openapi-parser"
import * as Effect from "effect/Effect"
import { HttpClient, HttpClientRequest, HttpRouter } from "effect/http"
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiClient,
  HttpApiEndpoint,
  HttpApiGroup,
  OpenApi
} from "effect/http-api"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { AuthContext, CurrentUser, HttpApiAuth } from "../../../src/Auth/index.js"
import { call, DOWN, makeProbe, type Probe, probeValidator, ServerLayer } from "./fixtures.js"

class CanDelete extends HttpApiAuth.RequirePermission<CanDelete>()("CanDelete", "posts:delete") {}
class OpsOnly extends HttpApiAuth.RequireUserType<OpsOnly>()("OpsOnly", ["ops", "admin"]) {}
class HeaderOnly extends HttpApiAuth.Tag<HeaderOnly>()("HeaderOnly", {
  header: "X-Token",
  cookie: false,
  query: false
}) {}
class Visitor extends HttpApiAuth.Optional<Visitor>()("Visitor") {}

const Me = Schema.Struct({ user_id: Schema.String, team: Schema.optionalKey(Schema.String) })

const Api = HttpApi.make("blog")
  .add(
    HttpApiGroup.make("public").add(
      HttpApiEndpoint.get("health", "/health", { success: Schema.String })
    )
  )
  .add(
    HttpApiGroup.make("account")
      .add(HttpApiEndpoint.get("me", "/me", { success: Me }))
      .add(HttpApiEndpoint.post("touch", "/me", { success: Me }))
      .add(
        HttpApiEndpoint.delete("remove", "/posts/:id", {
          params: { id: Schema.String },
          success: Schema.Struct({ removed: Schema.String })
        }).middleware(CanDelete)
      )
      .add(HttpApiEndpoint.get("stats", "/stats", { success: Schema.Number }).middleware(OpsOnly))
      .middleware(HttpApiAuth.Authentication)
  )
  .add(
    HttpApiGroup.make("ops")
      .add(HttpApiEndpoint.get("reports", "/reports", { success: Schema.String }))
      .middleware(OpsOnly)
  )
  .add(
    HttpApiGroup.make("tokens")
      .add(HttpApiEndpoint.get("whoami", "/whoami", { success: Schema.String }))
      .middleware(HeaderOnly)
  )
  .add(
    HttpApiGroup.make("visitors")
      .add(HttpApiEndpoint.get("hello", "/hello", { success: Schema.String }))
      .middleware(Visitor)
  )

const me = Effect.map(Effect.service(CurrentUser), ({ session, user_id }) => ({
  user_id,
  ...(typeof session.team === "string" ? { team: session.team } : {})
}))

const Handlers = Layer.mergeAll(
  HttpApiBuilder.group(Api, "public", (handlers) =>
    handlers.handle("health", () => Effect.succeed("ok"))
  ),
  HttpApiBuilder.group(Api, "account", (handlers) =>
    handlers
      .handle("me", () => me)
      .handle("touch", () => me)
      .handle("remove", ({ params }) => Effect.succeed({ removed: params.id }))
      .handle("stats", () => Effect.succeed(42))
  ),
  // no authentication middleware: the check authenticates, and provides CurrentUser itself
  HttpApiBuilder.group(Api, "ops", (handlers) =>
    handlers.handle("reports", () =>
      Effect.map(Effect.service(CurrentUser), (user) => user.user_id)
    )
  ),
  HttpApiBuilder.group(Api, "tokens", (handlers) =>
    handlers.handle("whoami", () => Effect.map(Effect.service(CurrentUser), (user) => user.user_id))
  ),
  HttpApiBuilder.group(Api, "visitors", (handlers) =>
    handlers.handle("hello", () =>
      Effect.map(Effect.service(AuthContext), (context) =>
        context.is_guest ? "hello, guest" : `hello, ${context.user_id}`
      )
    )
  )
)

const Middleware = Layer.mergeAll(
  HttpApiAuth.layer(HttpApiAuth.Authentication),
  HttpApiAuth.layer(HeaderOnly),
  HttpApiAuth.layerCheck(CanDelete),
  HttpApiAuth.layerCheck(OpsOnly),
  HttpApiAuth.layerOptional(Visitor)
)

const serving = (probe: Probe) =>
  HttpRouter.serve(
    HttpApiBuilder.layer(Api).pipe(Layer.provide(Handlers), Layer.provide(Middleware)),
    { disableLogger: true, disableListenLog: true }
  ).pipe(Layer.provide(probeValidator(probe)), Layer.provideMerge(ServerLayer))

/** Runs `body` against a real server with a counting validator. */
const withServer = <A, E>(body: (probe: Probe) => Effect.Effect<A, E, HttpClient.HttpClient>) =>
  Effect.gen(function* () {
    const probe = yield* makeProbe
    return yield* Effect.provide(body(probe), serving(probe))
  }).pipe(Effect.scoped)

describe("HttpApiAuth on a real server (Effect 4)", () => {
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
        }
        expect(probe.calls).toBe(7)
      })
    )
  )

  it.effect("HttpApiAuth.Optional gives guests and users an AuthContext, never a refusal", () =>
    withServer((probe) =>
      Effect.gen(function* () {
        expect(yield* call("/hello")).toMatchObject({ status: 200, body: "hello, guest" })
        expect(yield* call("/hello", { headers: { "x-session-id": "nope" } })).toMatchObject({
          status: 200,
          body: "hello, guest"
        })
        expect(yield* call("/hello", { headers: { "x-session-id": DOWN } })).toMatchObject({
          status: 200,
          body: "hello, guest"
        })
        expect(yield* call("/hello", { headers: { cookie: "session_id=s-user" } })).toMatchObject({
          status: 200,
          body: "hello, u1"
        })
        expect(probe.calls).toBe(3)
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
        const forbidden = yield* Effect.flip(user.account.remove({ params: { id: "1" } }))
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

describe("HttpApiAuth in the OpenAPI document (Effect 4)", () => {
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
    // Effect 4 lists no 400 of its own for an endpoint's parameters
    expect(Object.keys(responses).sort()).toEqual(["200", "401", "403", "500"])
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

describe("HttpApiAuth in the types (Effect 4)", () => {
  const Open = HttpApi.make("open").add(
    HttpApiGroup.make("account").add(HttpApiEndpoint.get("me", "/me", { success: Me }))
  )
  const Guarded = HttpApi.make("guarded").add(
    HttpApiGroup.make("account")
      .add(HttpApiEndpoint.get("me", "/me", { success: Me }))
      .middleware(HttpApiAuth.Authentication)
  )

  it("an endpoint asking for CurrentUser needs the middleware, which needs its layer", () => {
    const open = HttpApiBuilder.group(Open, "account", (handlers) =>
      handlers.handle("me", () => me)
    )
    const guarded = HttpApiBuilder.group(Guarded, "account", (handlers) =>
      handlers.handle("me", () => me)
    )
    // on Effect 4 the handler's own requirement is a request-level one of the router
    expectTypeOf<Layer.Services<typeof open>>().toEqualTypeOf<
      HttpRouter.Request<"Requires", CurrentUser>
    >()
    expectTypeOf<Layer.Services<typeof guarded>>().toEqualTypeOf<HttpApiAuth.Authentication>()
    const served = guarded.pipe(
      Layer.provide(HttpApiAuth.layer(HttpApiAuth.Authentication)),
      Layer.provide(probeValidator({ calls: 0, asked: undefined as never }))
    )
    expectTypeOf<Layer.Services<typeof served>>().toEqualTypeOf<never>()
    // @ts-expect-error CurrentUser is provided by no middleware of the endpoint
    const unserved: Layer.Layer<unknown, never, never> = open
    expect(unserved).toBe(open)
  })
})
