import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { deflateSync, gzipSync } from "node:zlib"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Agent, type Dispatcher } from "undici"
import { SvcClient } from "../../src/v3/Client/index.js"
import { FetchHttpClient } from "../Auth/lineKit.js"
import { closedPort, json, type RecordedRequest, testServer } from "./server.js"

describe("Effect API", () => {
  it.effect(
    "a failure the last response interceptor returns is an HttpError; a rescued one succeeds",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* testServer((request) =>
            request.path === "/gone"
              ? json({ error: "gone" }, 404)
              : json({ data: 1, success: true })
          )
          const [refused, rescued] = yield* Effect.gen(function* () {
            const client = yield* SvcClient
            yield* client.addResponseInterceptor((response) => {
              if (response.status === 404) return { success: true, status: 200, data: "default" }
              return {
                success: false,
                status: 409,
                error: "conflict by policy",
                code: "HTTP_ERROR"
              }
            })
            return [yield* Effect.flip(client.get("/ok")), yield* client.get("/gone")] as const
          }).pipe(
            Effect.provide(SvcClient.layer(server.origin)),
            Effect.provide(NodeHttpClient.layerUndici)
          )
          expect(refused).toMatchObject({
            _tag: "HttpError",
            status: 409,
            error: "conflict by policy"
          })
          expect(rescued).toEqual({ success: true, status: 200, data: "default" })
        })
      )
  )

  it.effect("yield* SvcClient gives the Effect API over the provided HttpClient", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => json({ data: { id: 7 }, success: true }))
        const program = Effect.gen(function* () {
          const client = yield* SvcClient
          const got = yield* client.get<{ id: number }>("/users/7")
          const posted = yield* client.post("/users", { a: 1 })
          const put = yield* client.put("/users/7", { a: 2 })
          const patched = yield* client.patch("/users/7", { a: 3 })
          const deleted = yield* client.delete("/users/7")
          return { got, posted, put, patched, deleted, base: client.getBaseUrl() }
        })
        const result = yield* program.pipe(
          Effect.provide(SvcClient.layer(`${server.origin}/api`)),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        expect(result.got).toEqual({
          success: true,
          status: 200,
          data: { id: 7 },
          headers: expect.objectContaining({ "content-type": "application/json" })
        })
        expect(result.deleted.success).toBe(true)
        expect(result.base).toBe(`${server.origin}/api`)
        expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
          "GET /api/users/7",
          "POST /api/users",
          "PUT /api/users/7",
          "PATCH /api/users/7",
          "DELETE /api/users/7"
        ])
      })
    )
  )

  it.effect("interrupting a request over the HttpClient adapter ends its exchange", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => ({ hang: true }))
        yield* Effect.gen(function* () {
          const client = yield* SvcClient
          // the request loses the race once the server has it: its fiber is interrupted
          yield* Effect.race(
            client.get("/hang"),
            Effect.promise(() => server.waitForRequests(1))
          )
          yield* Effect.promise(() => server.waitForAbandoned(1))
        }).pipe(
          Effect.provide(SvcClient.layer(server.origin)),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        expect(server.requests).toHaveLength(1)
      })
    )
  )

  it.effect(
    "an interrupted request's exchange ends before the request's own finalizer has run",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* testServer(() => ({ hang: true }))
          // a finalizer that waits on the server, as one that tells it of the cancellation would:
          // it must not wait on the exchange it follows (which would end only with the fiber)
          const seenByFinalizer = yield* Effect.gen(function* () {
            const client = yield* SvcClient
            let abandoned = false
            yield* Effect.race(
              client.get("/hang").pipe(
                Effect.onInterrupt(() =>
                  Effect.promise(async () => {
                    abandoned = await Promise.race([
                      server.waitForAbandoned(1).then(() => true),
                      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2_000))
                    ])
                  })
                )
              ),
              Effect.promise(() => server.waitForRequests(1))
            )
            return abandoned
          }).pipe(
            Effect.provide(SvcClient.layer(server.origin)),
            Effect.provide(NodeHttpClient.layerUndici)
          )
          expect(seenByFinalizer).toBe(true)
        })
      )
  )

  it.effect("SvcClient is a tag usable with Layer.succeed, and instances are facades", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer()
        const service = yield* SvcClient.make(server.origin).pipe(
          Effect.provide(NodeHttpClient.layerUndici)
        )
        const fromTag = yield* SvcClient.pipe(Effect.provide(Layer.succeed(SvcClient, service)))
        expect(fromTag).toBe(service)
        const facade = new SvcClient(server.origin)
        expect(typeof facade.get).toBe("function")
        expect(facade.getBaseUrl()).toBe(server.origin)
      })
    )
  )

  it.effect("fails with HttpError carrying status, error and body", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => json({ error: "No such user" }, 404))
        const error = yield* SvcClient.pipe(
          Effect.flatMap((client) => client.get("/u")),
          Effect.flip,
          Effect.provide(SvcClient.layer(server.origin)),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        expect(error._tag).toBe("HttpError")
        if (error._tag !== "HttpError") return
        expect(error.status).toBe(404)
        expect(error.error).toBe("No such user")
        expect(error.body).toEqual({ error: "No such user" })
        expect(error.message).toBe("No such user")
        expect(error).toBeInstanceOf(Error)
      })
    )
  )

  it.effect("fails with NetworkError when nothing listens", () =>
    Effect.gen(function* () {
      const origin = yield* Effect.promise(closedPort)
      const error = yield* SvcClient.pipe(
        Effect.flatMap((client) => client.get("/u")),
        Effect.flip,
        Effect.provide(SvcClient.layer(origin, { retryAttempts: 0 })),
        Effect.provide(NodeHttpClient.layerUndici)
      )
      expect(error._tag).toBe("NetworkError")
      expect(error.message).toMatch(/^Network error/)
    })
  )

  it.effect("session ids stay Redacted and never reach error messages", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => json({ error: "nope" }, 500))
        const program = Effect.gen(function* () {
          const client = yield* SvcClient
          yield* client.setSessionId(Redacted.make("secret-session-123"))
          const id = yield* client.getSessionId()
          const has = yield* client.hasSession()
          const error = yield* Effect.flip(client.get("/x"))
          yield* client.clearSession()
          return { id, has, error, after: yield* client.hasSession() }
        })
        const result = yield* program.pipe(
          Effect.provide(SvcClient.layer(server.origin, { retryAttempts: 0 })),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        expect(Option.map(result.id, Redacted.value)).toEqual(Option.some("secret-session-123"))
        expect(String(Option.getOrThrow(result.id))).not.toContain("secret")
        expect(result.has).toBe(true)
        expect(result.after).toBe(false)
        expect(server.requests[0]?.headers["x-session-id"]).toBe("secret-session-123")
        expect(JSON.stringify(result.error)).not.toContain("secret-session-123")
        expect(String(result.error)).not.toContain("secret-session-123")
        expect(result.error.message).not.toContain("secret-session-123")
      })
    )
  )

  it.effect("setHeader, interceptors and query work on the Effect API", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* testServer(() => json({ data: [], success: true }))
        const seen: Array<string> = []
        const program = Effect.gen(function* () {
          const client = yield* SvcClient
          yield* client.setHeader("X-Trace", "t1")
          yield* client.addRequestInterceptor((config) => {
            seen.push(config.url)
            return config
          })
          yield* client.addResponseInterceptor((response) => ({ ...response, message: "seen" }))
          return yield* client.query("/users").where("status", "active").page(2).get()
        })
        const response = yield* program.pipe(
          Effect.provide(SvcClient.layer(server.origin)),
          Effect.provide(NodeHttpClient.layerUndici)
        )
        expect(response).toMatchObject({ success: true, status: 200, data: [], message: "seen" })
        expect(server.requests[0]?.headers["x-trace"]).toBe("t1")
        expect(server.requests[0]?.query.toString()).toBe("status=active&page=2")
        expect(seen).toEqual([`${server.origin}/users?status=active&page=2`])
      })
    )
  )
})

describe("a client of its own for each build", () => {
  /** What each of two builds of one layer sends, after the first set a session, a header and an interceptor. */
  const twoBuilds = (layer: Layer.Layer<SvcClient>, server: { requests: Array<RecordedRequest> }) =>
    Effect.gen(function* () {
      const sent = () => {
        const request = server.requests[server.requests.length - 1]!
        return {
          session: request.headers["x-session-id"],
          authorization: request.headers.authorization,
          tenant: request.headers["x-tenant"]
        }
      }
      const first = yield* Effect.provide(SvcClient, yield* Layer.build(layer))
      yield* first.setSessionId("tenant-a-session")
      yield* first.setHeader("authorization", "Bearer a")
      yield* first.addRequestInterceptor((config) => ({
        ...config,
        headers: { ...config.headers, "x-tenant": "a" }
      }))
      yield* first.get("/x")
      const a = sent()
      const second = yield* Effect.provide(SvcClient, yield* Layer.build(layer))
      yield* second.get("/x")
      return [a, sent()] as const
    })

  const alone = { session: undefined, authorization: undefined, tenant: undefined }
  const set = { session: "tenant-a-session", authorization: "Bearer a", tenant: "a" }

  it.effect("layerDefault: two builds (two runtimes, Layer.fresh) share nothing", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => json({ data: 1, success: true }))
      const layer = SvcClient.layerDefault(server.origin)
      expect(yield* twoBuilds(layer, server)).toEqual([set, alone])
      expect(yield* twoBuilds(Layer.fresh(layer), server)).toEqual([set, alone])
    }).pipe(Effect.scoped)
  )

  it.effect("layer(HttpClient) and make: each build, each run, a client of its own", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => json({ data: 1, success: true }))
      const layer = SvcClient.layer(server.origin).pipe(Layer.provide(NodeHttpClient.layerUndici))
      expect(yield* twoBuilds(layer, server)).toEqual([set, alone])
      const make = SvcClient.make(server.origin)
      const made = Layer.effect(SvcClient, make).pipe(Layer.provide(NodeHttpClient.layerUndici))
      expect(yield* twoBuilds(made, server)).toEqual([set, alone])
    }).pipe(Effect.scoped)
  )

  it("bad settings still throw at the call", () => {
    expect(() => SvcClient.layerDefault("not a url")).toThrow(/baseUrl must be an absolute/)
    expect(() => SvcClient.layer("http://h", { timeout: -1 })).toThrow(/timeout/)
    expect(() => SvcClient.make("http://h", { retryAttempts: -1 })).toThrow(/retryAttempts/)
  })
})

describe("SvcClient.layer over FetchHttpClient", () => {
  it.effect(
    "keeps the application's RequestInit (a proxy's dispatcher), redirects left to svc-sdk",
    () =>
      Effect.gen(function* () {
        const server = yield* testServer((request) =>
          request.path === "/moved"
            ? { status: 302, headers: { location: "/x" } }
            : json({ data: 1, success: true })
        )
        let dispatched = 0
        class CountingAgent extends Agent {
          override dispatch(
            options: Dispatcher.DispatchOptions,
            handler: Dispatcher.DispatchHandler
          ) {
            dispatched++
            return super.dispatch(options, handler)
          }
        }
        const agent = new CountingAgent()
        yield* Effect.addFinalizer(() => Effect.promise(() => agent.close()))
        const init = { dispatcher: agent } as globalThis.RequestInit
        const response = yield* Effect.flatMap(SvcClient, (client) => client.get("/moved")).pipe(
          Effect.provide(SvcClient.layer(server.origin).pipe(Layer.provide(FetchHttpClient.layer))),
          Effect.provide(Layer.succeed(FetchHttpClient.RequestInit, init))
        )
        expect(response.data).toBe(1)
        // both hops through the application's dispatcher; the 302 reached svc-sdk, which followed it
        expect(dispatched).toBe(2)
        expect(server.requests.map((request) => request.path)).toEqual(["/moved", "/x"])
      }).pipe(Effect.scoped)
  )
})

/** A server answering every request with `body` as it is, under `Content-Encoding: encoding`. */
const encodedServer = (body: Uint8Array, encoding: string) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Http.Server & { origin: string }>((resolve) => {
          const listening = Http.createServer((_, response) => {
            response.writeHead(200, {
              "content-type": "application/json",
              "content-encoding": encoding
            })
            response.end(body)
          })
          listening.listen(0, "127.0.0.1", () => {
            const { port } = listening.address() as AddressInfo
            resolve(Object.assign(listening, { origin: `http://127.0.0.1:${port}` }))
          })
        })
    ),
    (server) =>
      Effect.promise(
        () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      )
  )

/** The call's outcome on `layer`: its failure (`Left`) or its response (`Right`), as both lines spell it. */
const outcomeOn = (layer: Layer.Layer<SvcClient>) =>
  Effect.flatMap(SvcClient, (client) => client.get("/x")).pipe(
    Effect.match({
      onFailure: (left) => ({ _tag: "Left" as const, left }),
      onSuccess: (right) => ({ _tag: "Right" as const, right })
    }),
    Effect.provide(layer)
  )

describe("compressed bodies over the HttpClient adapter", () => {
  it.effect(
    "a gzip body cut short fails with NETWORK_ERROR on layerDefault and over the adapter alike",
    () =>
      Effect.gen(function* () {
        const gzipped = gzipSync(
          JSON.stringify({ data: "hello world, ".repeat(20), success: true })
        )
        const server = yield* encodedServer(gzipped.subarray(0, gzipped.byteLength - 12), "gzip")
        const config = { retryAttempts: 0 }
        for (const layer of [
          SvcClient.layerDefault(server.origin, config),
          SvcClient.layer(server.origin, config).pipe(Layer.provide(NodeHttpClient.layerUndici))
        ]) {
          const outcome = yield* outcomeOn(layer)
          expect(outcome._tag).toBe("Left")
          if (outcome._tag === "Left") {
            expect(outcome.left._tag).toBe("NetworkError")
            expect(outcome.left.message).toMatch(/the body could not be decompressed/)
          }
        }
      }).pipe(Effect.scoped)
  )

  it.effect(
    'a deflate body fetch decoded, whose text looks like a zlib header ("XG…"), is read as it is',
    () =>
      Effect.gen(function* () {
        const text = JSON.stringify({ data: "XGBoost", success: true }).replace("{", "XG") // not JSON
        expect(new TextEncoder().encode(text)[0]).toBe(0x58)
        const server = yield* encodedServer(deflateSync(text), "deflate")
        const outcome = yield* outcomeOn(
          SvcClient.layer(server.origin, { retryAttempts: 0, responseType: "text" }).pipe(
            Layer.provide(FetchHttpClient.layer)
          )
        )
        expect(outcome).toMatchObject({ _tag: "Right", right: { data: text } })
      }).pipe(Effect.scoped)
  )
})
