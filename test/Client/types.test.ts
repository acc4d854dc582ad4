/**
 * The types show the rules: `ApiResponse<T>` is a union discriminated by `success`, so
 * `if (r.success)` narrows `data` to `T` and a failure always has `error` and `code`; the Effect API
 * succeeds only with `ApiSuccess<A>`, whose `data` is the schema's output (an `effect/Schema`, a
 * Standard Schema written by hand, zod or valibot) and never `undefined`; the facade keeps the union.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as v from "valibot"
import { z } from "zod"
import type {
  ApiFailure,
  ApiResponse,
  ApiSuccess,
  ErrorCode,
  ResponseInterceptor,
  ResponseMeta,
  StandardSchemaV1,
  SvcClientFacade,
  SvcClientService,
  SvcError
} from "../../src/v3/index.js"

interface User {
  readonly id: number
  readonly joined: Date
}

const UserSchema = Schema.Struct({ id: Schema.Number, joined: Schema.DateFromString })

const UserZod = z.object({ id: z.number(), joined: z.coerce.date() })

const UserValibot = v.object({
  id: v.number(),
  joined: v.pipe(
    v.string(),
    v.transform((text) => new Date(text))
  )
})

/** A Standard Schema v1 validator written by hand. */
const UserStandard: StandardSchemaV1<User> = {
  "~standard": {
    version: 1,
    vendor: "hand-written",
    validate: () => ({ issues: [{ message: "never" }] })
  }
}

describe("ApiResponse", () => {
  it("if (r.success) narrows data to T; a failure has error: string and code: ErrorCode", () => {
    const read = (response: ApiResponse<User>): number | string => {
      if (response.success) {
        expectTypeOf(response).toEqualTypeOf<ApiSuccess<User>>()
        expectTypeOf(response.data).toEqualTypeOf<User>()
        return response.data.id
      }
      expectTypeOf(response).toEqualTypeOf<ApiFailure>()
      expectTypeOf(response.error).toEqualTypeOf<string>()
      expectTypeOf(response.code).toEqualTypeOf<ErrorCode>()
      // a failure's data is the error body, not a T
      expectTypeOf(response.data).toEqualTypeOf<unknown>()
      return `${response.code}: ${response.error}`
    }
    const success: ApiResponse<User> = {
      success: true,
      status: 200,
      data: { id: 1, joined: new Date(0) }
    }
    const failure: ApiResponse<User> = {
      success: false,
      status: 0,
      error: "Request timed out after 10 ms",
      code: "TIMEOUT"
    }
    expect(read(success)).toBe(1)
    expect(read(failure)).toBe("TIMEOUT: Request timed out after 10 ms")
  })

  it("data is not T until success is checked", () => {
    const unchecked = (response: ApiResponse<User>) => {
      expectTypeOf(response.data).toEqualTypeOf<unknown>()
      // @ts-expect-error data may be a failure's body
      return response.data.id
    }
    expect(unchecked).toBeTypeOf("function")
  })

  it("a failure without error or code, or a success without data, is not an ApiResponse", () => {
    // @ts-expect-error a failure always carries its message
    const noError: ApiResponse = { success: false, status: 500, code: "HTTP_ERROR" }
    // @ts-expect-error a failure always carries its code
    const noCode: ApiResponse = { success: false, status: 500, error: "HTTP 500" }
    // @ts-expect-error a success always carries data
    const noData: ApiResponse<User> = { success: true, status: 200 }
    expect([noError, noCode, noData]).toHaveLength(3)
  })

  it("keeps every field of the seed on both variants, optional where it was", () => {
    type Seed = {
      readonly success: boolean
      readonly data?: unknown
      readonly error?: string
      readonly message?: string
      readonly status: number
      readonly meta?: ResponseMeta
      readonly code?: ErrorCode
      readonly headers?: Readonly<Record<string, string>>
    }
    expectTypeOf<keyof ApiSuccess<User>>().toEqualTypeOf<keyof Seed>()
    expectTypeOf<keyof ApiFailure>().toEqualTypeOf<keyof Seed>()
    // each variant is a seed response, so code written against the seed's shape still compiles
    expectTypeOf<ApiSuccess<User>>().toExtend<Seed>()
    expectTypeOf<ApiFailure>().toExtend<Seed>()
    expectTypeOf<ApiSuccess<User>["meta"]>().toEqualTypeOf<ResponseMeta | undefined>()
    expectTypeOf<ApiFailure["headers"]>().toEqualTypeOf<
      Readonly<Record<string, string>> | undefined
    >()
    expectTypeOf<ApiResponse>().toEqualTypeOf<ApiSuccess<unknown> | ApiFailure>()
  })

  it("a response interceptor returns an ApiResponse: a failure it makes has error and code", () => {
    const refuse: ResponseInterceptor = (response) =>
      response.success
        ? { success: false, status: 409, error: "conflict by policy", code: "HTTP_ERROR" }
        : response
    // @ts-expect-error a failure without its message
    const incomplete: ResponseInterceptor = (response) => ({ ...response, success: false })
    expect([refuse, incomplete]).toHaveLength(2)
  })
})

describe("the Effect API succeeds with ApiSuccess<A>", () => {
  it("success: true, and data: A with no undefined", () => {
    const get = (client: SvcClientService) => client.get<User>("/u")
    expectTypeOf(get).returns.toEqualTypeOf<Effect.Effect<ApiSuccess<User>, SvcError>>()
    expectTypeOf<ApiSuccess<User>["success"]>().toEqualTypeOf<true>()
    const post = (client: SvcClientService) => client.post("/u", { id: 1 })
    expectTypeOf(post).returns.toEqualTypeOf<Effect.Effect<ApiSuccess<unknown>, SvcError>>()
    const query = (client: SvcClientService) => client.query<Array<User>>("/u").page(2).get()
    expectTypeOf(query).returns.toEqualTypeOf<Effect.Effect<ApiSuccess<Array<User>>, SvcError>>()
    expect([get, post, query]).toHaveLength(3)
  })

  it("with an effect/Schema, data is the schema's Type", () => {
    const get = (client: SvcClientService) => client.get("/u", { schema: UserSchema })
    expectTypeOf(get).returns.toEqualTypeOf<
      Effect.Effect<ApiSuccess<{ readonly id: number; readonly joined: Date }>, SvcError>
    >()
    const put = (client: SvcClientService) => client.put("/u", { id: 1 }, { schema: UserSchema })
    expectTypeOf(put).returns.toEqualTypeOf<
      Effect.Effect<ApiSuccess<{ readonly id: number; readonly joined: Date }>, SvcError>
    >()
    expect([get, put]).toHaveLength(2)
  })

  it("with a Standard Schema — by hand, zod, valibot — data is the validator's output", () => {
    const standard = (client: SvcClientService) => client.get("/u", { schema: UserStandard })
    expectTypeOf(standard).returns.toEqualTypeOf<Effect.Effect<ApiSuccess<User>, SvcError>>()
    const zod = (client: SvcClientService) => client.get("/u", { schema: UserZod })
    expectTypeOf(zod).returns.toEqualTypeOf<
      Effect.Effect<ApiSuccess<z.output<typeof UserZod>>, SvcError>
    >()
    expectTypeOf<z.output<typeof UserZod>>().toEqualTypeOf<{ id: number; joined: Date }>()
    const valibot = (client: SvcClientService) => client.patch("/u", {}, { schema: UserValibot })
    expectTypeOf(valibot).returns.toEqualTypeOf<
      Effect.Effect<ApiSuccess<v.InferOutput<typeof UserValibot>>, SvcError>
    >()
    expectTypeOf<v.InferOutput<typeof UserValibot>>().toEqualTypeOf<{ id: number; joined: Date }>()
    expect([standard, zod, valibot]).toHaveLength(3)
  })
})

describe("the facade resolves to the union", () => {
  it("Promise<ApiResponse<A>>, A from the schema", () => {
    const get = (svc: SvcClientFacade) => svc.get<User>("/u")
    expectTypeOf(get).returns.toEqualTypeOf<Promise<ApiResponse<User>>>()
    const effectSchema = (svc: SvcClientFacade) => svc.get("/u", { schema: UserSchema })
    expectTypeOf(effectSchema).returns.toEqualTypeOf<
      Promise<ApiResponse<{ readonly id: number; readonly joined: Date }>>
    >()
    const zod = (svc: SvcClientFacade) => svc.get("/u", { schema: UserZod })
    expectTypeOf(zod).returns.toEqualTypeOf<Promise<ApiResponse<z.output<typeof UserZod>>>>()
    const valibot = (svc: SvcClientFacade) => svc.post("/u", {}, { schema: UserValibot })
    expectTypeOf(valibot).returns.toEqualTypeOf<
      Promise<ApiResponse<v.InferOutput<typeof UserValibot>>>
    >()
    const query = (svc: SvcClientFacade) => svc.query<Array<User>>("/u").get()
    expectTypeOf(query).returns.toEqualTypeOf<Promise<ApiResponse<Array<User>>>>()
    expect([get, effectSchema, zod, valibot, query]).toHaveLength(5)
  })
})
