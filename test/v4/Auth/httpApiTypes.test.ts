/**
 * `HttpApiAuth` in the types, on Effect 4: an endpoint asking for `CurrentUser` needs the
 * middleware, which needs its layer.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import type { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import * as Layer from "effect/Layer"
import { type CurrentUser, HttpApiAuth } from "../../../src/Auth/index.js"
import { probeValidator } from "./fixtures.js"
import { Me, me } from "./httpApiLine.js"

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
