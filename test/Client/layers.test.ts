/**
 * The Effect API over the facade's own transport (`SvcClient.layerDefault`, no `HttpClient`), and
 * with its settings from `Config` (`SvcClient.layerConfig`): a bad base URL is a `ConfigError`.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SvcClient, type SvcConfig } from "../../src/v3/Client/index.js"
import { json, startServer, testServer } from "./server.js"

describe("SvcClient.layerDefault", () => {
  it.scoped("sends over the runtime's own transport, with typed failures", () =>
    Effect.gen(function* () {
      const server = yield* testServer((request) =>
        request.path === "/missing"
          ? json({ error: "No such user" }, 404)
          : json({ data: { id: 1 }, success: true })
      )
      const [found, missing] = yield* Effect.gen(function* () {
        const client = yield* SvcClient
        return [yield* client.get("/users/1"), yield* Effect.flip(client.get("/missing"))] as const
      }).pipe(Effect.provide(SvcClient.layerDefault(server.origin, { sessionId: "s-layer" })))
      expect(found).toMatchObject({ success: true, status: 200, data: { id: 1 } })
      expect(missing).toMatchObject({ _tag: "HttpError", status: 404, error: "No such user" })
      expect(server.requests[0]!.headers["x-session-id"]).toBe("s-layer")
    })
  )

  it("a bad base URL throws at the call, naming it", () => {
    expect(() => SvcClient.layerDefault("not a url")).toThrow(/baseUrl must be an absolute/)
  })
})

describe("SvcClient.layerConfig", () => {
  const settings = Config.all({
    baseUrl: Config.string("API_URL"),
    timeout: Config.integer("API_TIMEOUT_MS").pipe(Config.withDefault(10_000))
  })
  const withEnv = (env: Record<string, string>) =>
    Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.scoped("reads the base URL and settings from Config", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => json({ data: "ok", success: true }))
      const response = yield* Effect.flatMap(SvcClient, (client) => client.get("/x")).pipe(
        Effect.provide(SvcClient.layerConfig(settings)),
        Effect.provide(withEnv({ API_URL: `${server.origin}/api` }))
      )
      expect(response).toMatchObject({ success: true, data: "ok" })
      expect(server.requests[0]!.path).toBe("/api/x")
    })
  )

  it.effect("a bad base URL or setting is a ConfigError, not a defect", () =>
    Effect.gen(function* () {
      for (const env of [
        { API_URL: "ftp://files.example" },
        { API_URL: "http://h", API_TIMEOUT_MS: String(2 ** 32) }
      ]) {
        const error = yield* Effect.flip(
          Effect.flatMap(SvcClient, (client) => client.get("/x")).pipe(
            Effect.provide(SvcClient.layerConfig(settings)),
            Effect.provide(withEnv(env))
          )
        )
        expect(ConfigError.isConfigError(error)).toBe(true)
        expect(String(error)).toMatch(
          /baseUrl must be an http: or https: URL, got a "ftp:" URL|timeout must be between/
        )
      }
      const missing = yield* Effect.flip(
        Effect.flatMap(SvcClient, (client) => client.get("/x")).pipe(
          Effect.provide(SvcClient.layerConfig(settings)),
          Effect.provide(withEnv({}))
        )
      )
      expect(ConfigError.isConfigError(missing)).toBe(true)
    })
  )
})

describe("SvcClient.layer over an HttpClient that follows redirects itself", () => {
  /** The failure of a GET of `/moved` through such a client, over undici. */
  const failureOfMoved = (origin: string, config: SvcConfig<"effect">) =>
    Effect.runPromise(
      Effect.flatMap(SvcClient, (client) => Effect.flip(client.get("/moved"))).pipe(
        Effect.provide(SvcClient.layer(origin, config)),
        Effect.provide(
          Layer.effect(
            HttpClient.HttpClient,
            Effect.map(HttpClient.HttpClient, (client) => HttpClient.followRedirects(client, 5))
          ).pipe(Layer.provide(NodeHttpClient.layerUndici))
        )
      )
    )

  it("fails with a NETWORK_ERROR that says so, instead of answering from wherever it went", async () => {
    const server = await startServer((request) =>
      request.path === "/moved" ? { status: 302, headers: { location: "/x" } } : json({ data: 1 })
    )
    try {
      const error = await failureOfMoved(server.origin, { retryAttempts: 0 })
      expect(error._tag).toBe("NetworkError")
      expect(error.message).toMatch(/the HttpClient followed a redirect itself/)
    } finally {
      await server.close()
    }
  })

  it("is never retried: the session reaches the redirect's other origin once, not once per try", async () => {
    const elsewhere = await startServer(() => json({ data: 1 }))
    const server = await startServer(() => ({
      status: 302,
      headers: { location: `${elsewhere.origin}/x` }
    }))
    try {
      // the default retries (2)
      const error = await failureOfMoved(server.origin, { sessionId: "SID123" })
      expect(error).toMatchObject({ _tag: "NetworkError", permanent: true })
      expect(server.requests).toHaveLength(1)
      expect(elsewhere.requests).toHaveLength(1)
    } finally {
      await server.close()
      await elsewhere.close()
    }
  })
})
