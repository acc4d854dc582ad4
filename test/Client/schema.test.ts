import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as v from "valibot"
import { z } from "zod"
import { loadOnce } from "../../src/common/loadOnce.js"
import { createSvc, type StandardSchemaV1, SvcClient } from "../../src/v3/Client/index.js"
import { LINE } from "../Auth/lineKit.js"
import { json, type Script, startServer, testServer } from "./server.js"

const User = Schema.Struct({ id: Schema.Number, joined: Schema.DateFromString })

describe("schema decoding", () => {
  it.effect("decodes and types data on the Effect API", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() =>
          json({ data: { id: 1, joined: "2024-01-01T00:00:00.000Z" }, success: true })
        )
        const response = yield* SvcClient.pipe(
          Effect.flatMap((client) => client.get("/u", { schema: User })),
          Effect.provide(SvcClient.layer(server.origin)),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        const joined: Date = response.data.joined
        expect(joined).toEqual(new Date("2024-01-01T00:00:00.000Z"))
      })
    )
  )

  it.effect("a mismatch fails with DecodeError carrying the real status", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => json({ id: "not a number" }, 201))
        const error = yield* SvcClient.pipe(
          Effect.flatMap((client) => Effect.flip(client.get("/u", { schema: User }))),
          Effect.provide(SvcClient.layer(server.origin)),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        expect(error._tag).toBe("DecodeError")
        if (error._tag === "DecodeError") expect(error.status).toBe(201)
      })
    )
  )

  it("the facade gives success:false, DECODE_ERROR and the real status on a 2xx mismatch", async () => {
    const server = await startServer(() => json([{ id: 1 }]))
    try {
      const svc = createSvc(server.origin)
      const ok = await svc.get("/u", { schema: Schema.Array(Schema.Struct({ id: Schema.Number })) })
      expect(ok).toMatchObject({ success: true, status: 200, data: [{ id: 1 }] })
      expect(ok.headers?.["content-type"]).toBe("application/json")
      const bad = await svc.get("/u", { schema: Schema.Array(Schema.String) })
      expect(bad).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
      expect(bad.error).toMatch(/does not match the schema/)
      // a failure that came from a response carries its headers
      expect(bad.headers?.["content-type"]).toBe("application/json")
    } finally {
      await server.close()
    }
  })
})

describe("schema decoding and __proto__", () => {
  // spelt as each line spells it
  const AnyRecord = (
    LINE === 4
      ? (Schema.Record as unknown as (key: unknown, value: unknown) => unknown)(
          Schema.String,
          Schema.Unknown
        )
      : Schema.Record({ key: Schema.String, value: Schema.Unknown })
  ) as Schema.Schema<Record<string, unknown>>

  it.effect("an own __proto__ key of the body never sets the decoded record's prototype", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => ({
          headers: { "content-type": "application/json" },
          body: '{"data":{"__proto__":{"isAdmin":true},"name":"x","nested":[{"__proto__":{"isAdmin":true}}]}}'
        }))
        const response = yield* SvcClient.pipe(
          Effect.flatMap((client) => client.get("/u", { schema: AnyRecord })),
          Effect.provide(SvcClient.layer(server.origin)),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        const data = response.data as Record<string, unknown>
        expect(Object.getPrototypeOf(data)).toBe(Object.prototype)
        expect(data.isAdmin).toBeUndefined()
        expect(data.name).toBe("x")
        const nested = (data.nested as Array<Record<string, unknown>>)[0]!
        expect(nested.isAdmin).toBeUndefined()
        // the same schema as a Standard Schema validator, as each line makes one
        const standard = (
          LINE === 4
            ? (
                Schema as unknown as { toStandardSchemaV1: (s: unknown) => unknown }
              ).toStandardSchemaV1(AnyRecord)
            : (Schema as unknown as { standardSchemaV1: (s: unknown) => unknown }).standardSchemaV1(
                AnyRecord
              )
        ) as StandardSchemaV1<Record<string, unknown>>
        const validated = yield* SvcClient.pipe(
          Effect.flatMap((client) => client.get("/u", { schema: standard })),
          Effect.provide(SvcClient.layer(server.origin)),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        expect(Object.getPrototypeOf(validated.data)).toBe(Object.prototype)
        expect(validated.data.isAdmin).toBeUndefined()
        expect(validated.data.name).toBe("x")
      })
    )
  )
})

describe("a schema of the other Effect line", () => {
  it("is INVALID_REQUEST naming it as such, nothing sent", async () => {
    // each line's own schema module, by path: what an app with both Effects installed may pass
    const path =
      LINE === 4
        ? "../../node_modules/effect/dist/esm/Schema.js"
        : "../../toolchains/effect4/node_modules/effect/dist/Schema.js"
    const other = (await import(/* @vite-ignore */ new URL(path, import.meta.url).href)) as {
      readonly Number: unknown
    }
    const server = await startServer(() => json({ data: 1, success: true }))
    try {
      const response = await createSvc(server.origin).get("/n", { schema: other.Number as never })
      expect(response).toMatchObject({
        success: false,
        code: "INVALID_REQUEST",
        error:
          "options.schema must be an effect/Schema or a Standard Schema validator, got an effect/Schema of the other Effect line"
      })
      expect(server.requests).toHaveLength(0)
    } finally {
      await server.close()
    }
  })
})

describe("Standard Schema validators", () => {
  /** A Standard Schema v1 validator written by hand, as zod and valibot expose theirs. */
  const PositiveId: StandardSchemaV1<{ readonly id: number }> = {
    "~standard": {
      version: 1,
      vendor: "hand-written",
      validate: (value) =>
        typeof value === "object" &&
        value !== null &&
        typeof (value as { id?: unknown }).id === "number" &&
        (value as { id: number }).id > 0
          ? { value: { id: (value as { id: number }).id } }
          : { issues: [{ message: "must be a positive number", path: ["id"] }] }
    }
  }

  it("decodes data, and a mismatch on a 2xx is DECODE_ERROR naming the path", async () => {
    const server = await startServer((request) =>
      json({ data: { id: request.path === "/good" ? 7 : -1, extra: true }, success: true })
    )
    try {
      const svc = createSvc(server.origin)
      const good = await svc.get("/good", { schema: PositiveId })
      expect(good).toMatchObject({ success: true, status: 200, data: { id: 7 } })
      expect(good.data).toEqual({ id: 7 })
      const bad = await svc.get("/bad", { schema: PositiveId })
      expect(bad).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
      expect(bad.error).toBe(
        "Response data does not match the schema: id: must be a positive number"
      )
    } finally {
      await server.close()
    }
  })
})

describe("Standard Schema validators that answer unusually", () => {
  const validator = (
    validate: StandardSchemaV1["~standard"]["validate"]
  ): StandardSchemaV1<{ readonly id: number }> =>
    ({ "~standard": { version: 1, vendor: "hand-written", validate } }) as StandardSchemaV1<{
      readonly id: number
    }>

  it("a validator that throws is DECODE_ERROR with its message; one that answers a thenable is waited for; one that answers nothing is DECODE_ERROR", async () => {
    const server = await startServer(() => json({ data: { id: 7 }, success: true }))
    try {
      const svc = createSvc(server.origin)
      const threw = await svc.get("/x", {
        schema: validator(() => {
          throw new Error("validator exploded")
        })
      })
      expect(threw).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
      expect(threw.error).toBe("Response data does not match the schema: validator exploded")
      // a thenable that is not a Promise (another realm's, a library's own)
      const thenable = await svc.get("/x", {
        schema: validator(
          (value) =>
            ({
              // biome-ignore lint/suspicious/noThenProperty: the thenable under test
              then: (resolve: (result: unknown) => void) =>
                setTimeout(() => resolve({ value: { id: (value as { id: number }).id * 2 } }), 1)
            }) as never
        )
      })
      expect(thenable).toMatchObject({ success: true, status: 200, data: { id: 14 } })
      // an answer whose `then` getter throws, and issues that are not a list
      const trap = await svc.get("/x", {
        schema: validator(
          () =>
            ({
              // biome-ignore lint/suspicious/noThenProperty: the getter under test
              get then() {
                throw new Error("then exploded")
              }
            }) as never
        )
      })
      expect(trap).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
      expect(trap.error).toBe("Response data does not match the schema: then exploded")
      const notAList = await svc.get("/x", {
        schema: validator(() => ({ issues: 7 }) as never)
      })
      expect(notAList).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
      for (const answer of [null, undefined, 42]) {
        const none = await svc.get("/x", { schema: validator(() => answer as never) })
        expect(none).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
        expect(none.error).toBe(
          "Response data does not match the schema: the schema's validate answered no result"
        )
      }
    } finally {
      await server.close()
    }
  })
})

describe("zod and valibot validators, as users write them", () => {
  const JOINED = "2024-01-01T00:00:00.000Z"
  const user = (id: number, city: unknown = "Oslo") => ({ id, joined: JOINED, address: { city } })

  /**
   * `/user/<id>`: a user in an envelope; `/mismatch`: a bare body, 201, wrong at `address.city`;
   * `/missing`: a 404.
   */
  const script: Script = (request) => {
    if (request.path === "/mismatch") return json(user(7, 5), 201)
    if (request.path === "/missing") return json({ error: "no such user" }, 404)
    return json({ success: true, data: user(Number(request.path.split("/")[2])) })
  }

  const vendors = [
    {
      vendor: "zod",
      // z.coerce.date(): the validator's output (a Date), not the wire's string, comes back
      User: z.object({
        id: z.number(),
        joined: z.coerce.date(),
        address: z.object({ city: z.string() })
      }),
      // an async refinement: zod's validate then answers with a Promise (safeParseAsync)
      KnownUser: z
        .object({
          id: z.number(),
          joined: z.coerce.date(),
          address: z.object({ city: z.string() })
        })
        .refine(async (found) => (await Promise.resolve(found.id)) !== 13, {
          message: "unknown user",
          path: ["id"]
        })
    },
    {
      vendor: "valibot",
      User: v.object({
        id: v.number(),
        joined: v.pipe(
          v.string(),
          v.isoTimestamp(),
          v.transform((text) => new Date(text))
        ),
        address: v.object({ city: v.string() })
      }),
      KnownUser: v.objectAsync({
        id: v.pipeAsync(
          v.number(),
          v.checkAsync(async (id) => (await Promise.resolve(id)) !== 13, "unknown user")
        ),
        joined: v.pipe(
          v.string(),
          v.isoTimestamp(),
          v.transform((text) => new Date(text))
        ),
        address: v.object({ city: v.string() })
      })
    }
  ] as const

  describe.each(vendors)("$vendor", ({ User, KnownUser }) => {
    it("the facade: data is the validator's output, typed", async () => {
      const server = await startServer(script)
      try {
        const response = await createSvc(server.origin).get("/user/7", { schema: User })
        assert(response.success)
        const joined: Date = response.data.joined
        expect(joined).toBeInstanceOf(Date)
        expect(joined.toISOString()).toBe(JOINED)
        expect(response.data).toEqual({
          id: 7,
          joined: new Date(JOINED),
          address: { city: "Oslo" }
        })
        expect(response.status).toBe(200)
      } finally {
        await server.close()
      }
    })

    it("the facade: a mismatch on a 2xx is DECODE_ERROR with the real status, naming the path", async () => {
      const server = await startServer(script)
      try {
        const response = await createSvc(server.origin).get("/mismatch", { schema: User })
        expect(response).toMatchObject({ success: false, status: 201, code: "DECODE_ERROR" })
        expect(response.error).toMatch(
          /^Response data does not match the schema: address\.city: .*expected string/i
        )
      } finally {
        await server.close()
      }
    })

    it("the facade: a non-2xx is an HTTP_ERROR, not decoded", async () => {
      const server = await startServer(script)
      try {
        const response = await createSvc(server.origin).get("/missing", { schema: User })
        expect(response).toMatchObject({
          success: false,
          status: 404,
          code: "HTTP_ERROR",
          error: "no such user"
        })
      } finally {
        await server.close()
      }
    })

    it("an async validator: validate answers with a Promise, and both outcomes arrive", async () => {
      expect(KnownUser["~standard"].validate(user(1))).toBeInstanceOf(Promise)
      const server = await startServer(script)
      try {
        const svc = createSvc(server.origin)
        const known = await svc.get("/user/7", { schema: KnownUser })
        assert(known.success)
        expect(known.data.joined).toEqual(new Date(JOINED))
        const unknown = await svc.get("/user/13", { schema: KnownUser })
        expect(unknown).toMatchObject({ success: false, status: 200, code: "DECODE_ERROR" })
        expect(unknown.error).toBe("Response data does not match the schema: id: unknown user")
      } finally {
        await server.close()
      }
    })

    it.effect(
      "the Effect API: success has data typed as the output; a mismatch is a DecodeError",
      () =>
        Effect.scoped(
          Effect.gen(function* () {
            const server = yield* testServer(script)
            const [found, mismatch, unknown] = yield* Effect.gen(function* () {
              const client = yield* SvcClient
              return [
                yield* client.get("/user/7", { schema: User }),
                yield* Effect.flip(client.get("/mismatch", { schema: User })),
                yield* Effect.flip(client.get("/user/13", { schema: KnownUser }))
              ] as const
            }).pipe(Effect.provide(SvcClient.layerDefault(server.origin)))
            expect(found.success).toBe(true)
            const joined: Date = found.data.joined
            expect(joined).toEqual(new Date(JOINED))
            expect(mismatch._tag).toBe("DecodeError")
            assert(mismatch._tag === "DecodeError")
            expect(mismatch.status).toBe(201)
            expect(mismatch.detail).toMatch(/^address\.city: .*expected string/i)
            expect(mismatch.body).toEqual(user(7, 5))
            expect(mismatch.headers?.["content-type"]).toBe("application/json")
            assert(unknown._tag === "DecodeError")
            expect(unknown).toMatchObject({ status: 200, detail: "id: unknown user" })
          })
        )
    )

    it.effect("the Effect API: a success a response interceptor returns is decoded too", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* testServer(script)
          const rescued = yield* Effect.gen(function* () {
            const client = yield* SvcClient
            yield* client.addResponseInterceptor((response) =>
              response.status === 404 ? { success: true, status: 200, data: user(0) } : response
            )
            return yield* client.get("/missing", { schema: User })
          }).pipe(Effect.provide(SvcClient.layerDefault(server.origin)))
          expect(rescued.data).toEqual({
            id: 0,
            joined: new Date(JOINED),
            address: { city: "Oslo" }
          })
        })
      )
    )
  })
})

describe("what a program loads on first use (the schema decoder, the stream programs)", () => {
  it.effect(
    "is loaded once: runs that start together share the load, later ones take it at once",
    () =>
      Effect.gen(function* () {
        let loads = 0
        const loaded = loadOnce(async () => {
          loads++
          return { decoder: loads }
        }, "decoder")
        const together = yield* Effect.all([loaded, loaded, loaded], { concurrency: "unbounded" })
        const later = yield* loaded
        expect(loads).toBe(1)
        expect(together.every((value) => value === later)).toBe(true)
        expect(later).toEqual({ decoder: 1 })
      })
  )

  it.effect(
    "a load that failed fails its run, naming the module, and is tried again by the next",
    () =>
      Effect.gen(function* () {
        let loads = 0
        const missing = new TypeError("Failed to fetch dynamically imported module")
        const loaded = loadOnce(async () => {
          loads++
          if (loads === 1) throw missing
          return "decoder"
        }, "decoder")
        // a typed failure, not a defect
        const failure = yield* Effect.flip(loaded)
        expect(failure).toEqual({
          message:
            "svc-sdk's decoder could not be loaded (Failed to fetch dynamically imported module)",
          cause: missing
        })
        expect(yield* loaded).toBe("decoder")
        expect(yield* loaded).toBe("decoder")
        expect(loads).toBe(2)
      })
  )
})
