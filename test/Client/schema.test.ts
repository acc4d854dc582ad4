import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { createSvc, type StandardSchemaV1, SvcClient } from "../../src/Client/index.js"
import { json, startServer, testServer } from "./server.js"

const User = Schema.Struct({ id: Schema.Number, joined: Schema.DateFromString })

describe("schema decoding", () => {
  it.scoped("decodes and types data on the Effect API", () =>
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

  it.scoped("a mismatch fails with DecodeError carrying the real status", () =>
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
