/**
 * What the shared `HttpApi` test (httpApi.test.ts) needs of the Effect 3 line: the API, its
 * handlers and middleware layers, a real server with a counting validator, and the few calls and
 * answers the two `effect/http-api`s spell differently. The Effect 4 run puts
 * test/v4/Auth/httpApiLine.ts, with the same names, in its place.
 */
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiClient,
  HttpApiEndpoint,
  HttpApiGroup,
  type HttpClient,
  OpenApi
} from "@effect/platform"
import { Effect, Layer, Schema } from "effect"
import { CurrentUser, HttpApiAuth } from "../../src/v3/Auth/index.js"
import { makeProbe, type Probe, probeValidator, ServerLayer } from "./fixtures.js"

export { HttpApiClient, OpenApi }

/** The path parameters of `DELETE /posts/:id`, as the client takes them: `path` on Effect 3. */
export const postId = (id: string) => ({ path: { id } })

/**
 * The statuses the OpenAPI document lists for `DELETE /posts/{id}` besides the guards' own:
 * Effect 3 adds a 400 for the endpoint's parameters.
 */
export const ENDPOINT_STATUSES = ["200", "400"]

export class CanDelete extends HttpApiAuth.RequirePermission<CanDelete>()(
  "CanDelete",
  "posts:delete"
) {}
export class OpsOnly extends HttpApiAuth.RequireUserType<OpsOnly>()("OpsOnly", ["ops", "admin"]) {}
export class HeaderOnly extends HttpApiAuth.Tag<HeaderOnly>()("HeaderOnly", {
  header: "X-Token",
  cookie: false,
  query: false
}) {}

export const Me = Schema.Struct({ user_id: Schema.String, team: Schema.optional(Schema.String) })

export const Api = HttpApi.make("blog")
  .add(
    HttpApiGroup.make("public").add(
      HttpApiEndpoint.get("health", "/health").addSuccess(Schema.String)
    )
  )
  .add(
    HttpApiGroup.make("account")
      .add(HttpApiEndpoint.get("me", "/me").addSuccess(Me))
      .add(HttpApiEndpoint.post("touch", "/me").addSuccess(Me))
      .add(
        HttpApiEndpoint.del("remove", "/posts/:id")
          .setPath(Schema.Struct({ id: Schema.String }))
          .addSuccess(Schema.Struct({ removed: Schema.String }))
          .middleware(CanDelete)
      )
      .add(HttpApiEndpoint.get("stats", "/stats").addSuccess(Schema.Number).middleware(OpsOnly))
      .middleware(HttpApiAuth.Authentication)
  )
  .add(
    HttpApiGroup.make("ops")
      .add(HttpApiEndpoint.get("reports", "/reports").addSuccess(Schema.String))
      .middleware(OpsOnly)
  )
  .add(
    HttpApiGroup.make("tokens")
      .add(HttpApiEndpoint.get("whoami", "/whoami").addSuccess(Schema.String))
      .middleware(HeaderOnly)
  )

export const me = Effect.map(CurrentUser, ({ session, user_id }) => ({
  user_id,
  team: typeof session.team === "string" ? session.team : undefined
}))

const Handlers = Layer.mergeAll(
  HttpApiBuilder.group(Api, "public", (handlers) =>
    handlers.handle("health", () => Effect.succeed("ok"))
  ),
  HttpApiBuilder.group(Api, "account", (handlers) =>
    handlers
      .handle("me", () => me)
      .handle("touch", () => me)
      .handle("remove", ({ path }) => Effect.succeed({ removed: path.id }))
      .handle("stats", () => Effect.succeed(42))
  ),
  // no authentication middleware: the check authenticates, and provides CurrentUser itself
  HttpApiBuilder.group(Api, "ops", (handlers) =>
    handlers.handle("reports", () => Effect.map(CurrentUser, (user) => user.user_id))
  ),
  HttpApiBuilder.group(Api, "tokens", (handlers) =>
    handlers.handle("whoami", () => Effect.map(CurrentUser, (user) => user.user_id))
  )
)

const Middleware = Layer.mergeAll(
  HttpApiAuth.layer(HttpApiAuth.Authentication),
  HttpApiAuth.layer(HeaderOnly),
  HttpApiAuth.layerCheck(CanDelete),
  HttpApiAuth.layerCheck(OpsOnly)
)

const serving = (probe: Probe) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(Handlers), Layer.provide(Middleware))),
    Layer.provide(probeValidator(probe)),
    Layer.provideMerge(ServerLayer)
  )

/** Runs `body` against a real server with a counting validator. */
export const withServer = <A, E>(
  body: (probe: Probe) => Effect.Effect<A, E, HttpClient.HttpClient>
) =>
  Effect.gen(function* () {
    const probe = yield* makeProbe
    return yield* Effect.provide(body(probe), serving(probe))
  }).pipe(Effect.scoped)
