/**
 * `HttpApiAuth` in the types, on Effect 3: an endpoint asking for `CurrentUser` needs the
 * middleware, which needs its layer.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Layer } from "effect"
import { type CurrentUser, HttpApiAuth } from "../../src/v3/Auth/index.js"
import { probeValidator } from "./fixtures.js"
import { Me, me } from "./httpApiLine.js"

describe("HttpApiAuth in the types", () => {
  const Open = HttpApi.make("open").add(
    HttpApiGroup.make("account").add(HttpApiEndpoint.get("me", "/me").addSuccess(Me))
  )
  const Guarded = HttpApi.make("guarded").add(
    HttpApiGroup.make("account")
      .add(HttpApiEndpoint.get("me", "/me").addSuccess(Me))
      .middleware(HttpApiAuth.Authentication)
  )

  it("an endpoint asking for CurrentUser needs the middleware, which needs its layer", () => {
    const open = HttpApiBuilder.group(Open, "account", (handlers) =>
      handlers.handle("me", () => me)
    )
    const guarded = HttpApiBuilder.group(Guarded, "account", (handlers) =>
      handlers.handle("me", () => me)
    )
    expectTypeOf<Layer.Layer.Context<typeof open>>().toEqualTypeOf<CurrentUser>()
    expectTypeOf<Layer.Layer.Context<typeof guarded>>().toEqualTypeOf<HttpApiAuth.Authentication>()
    const served = guarded.pipe(
      Layer.provide(HttpApiAuth.layer(HttpApiAuth.Authentication)),
      Layer.provide(probeValidator({ calls: 0, asked: undefined as never }))
    )
    expectTypeOf<Layer.Layer.Context<typeof served>>().toEqualTypeOf<never>()
    // @ts-expect-error CurrentUser is provided by no middleware of the endpoint
    const unserved: Layer.Layer<unknown, never, never> = open
    expect(unserved).toBe(open)
  })
})
