/**
 * Effect 4's side of test/Auth/httpApiLine.ts (see there), with an `HttpApiAuth.Optional` group
 * (`/hello`) beside.
 */
import * as Effect from "effect/Effect"
import { type HttpClient, HttpRouter } from "effect/http"
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
import { makeProbe, type Probe, probeValidator, ServerLayer } from "./fixtures.js"

export { HttpApiClient, OpenApi }

/** The path parameters of `DELETE /posts/:id`, as the client takes them: `params` on Effect 4. */
export const postId = (id: string) => ({ params: { id } })

/**
 * The statuses the OpenAPI document lists for `DELETE /posts/{id}` besides the guards' own:
 * Effect 4 lists no 400 of its own for an endpoint's parameters.
 */
export const ENDPOINT_STATUSES = ["200"]

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
export class Visitor extends HttpApiAuth.Optional<Visitor>()("Visitor") {}

export const Me = Schema.Struct({ user_id: Schema.String, team: Schema.optionalKey(Schema.String) })

export const Api = HttpApi.make("blog")
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

export const me = Effect.map(Effect.service(CurrentUser), ({ session, user_id }) => ({
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
export const withServer = <A, E>(
  body: (probe: Probe) => Effect.Effect<A, E, HttpClient.HttpClient>
) =>
  Effect.gen(function* () {
    const probe = yield* makeProbe
    return yield* Effect.provide(body(probe), serving(probe))
  }).pipe(Effect.scoped)
