/**
 * Security item 4 (SPEC 4.3.5): the application's code a request waits on — interceptors,
 * `onRequest`/`onResponse`, `getSessionId`, a storage adapter — never keeps it pending past its
 * timeout, and the caller's `AbortSignal` ends it at once in every phase.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { afterAll, beforeAll } from "vitest"
import type { StorageAdapter } from "../../src/Storage/index.js"
import {
  createSvc,
  type RequestConfig,
  type SvcClientService,
  type SvcConfig
} from "../../src/v3/Client/index.js"
import { fork, TestClock } from "../Auth/lineKit.js"
import { json, startServer, type TestServer } from "./server.js"
import { flush, withClient } from "./transports.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() => json({ data: 1, success: true }))
})
afterAll(() => server.close())

const never = () => new Promise<never>(() => undefined)

const hungStorage: StorageAdapter = {
  getItem: never,
  setItem: async () => undefined,
  removeItem: async () => undefined
}

/** A client whose one piece of application code never finishes; `reached` tells when it runs. */
interface Hook {
  readonly name: string
  readonly waitingFor: string
  readonly config: (reached: () => void) => SvcConfig
  readonly setup?: (client: SvcClientService, reached: () => void) => Effect.Effect<void>
  /** Whether the request reaches the server before the hook runs. */
  readonly afterSending: boolean
}

const hooks: ReadonlyArray<Hook> = [
  {
    name: "a request interceptor",
    waitingFor: "the request interceptors",
    config: () => ({}),
    setup: (client, reached) =>
      client.addRequestInterceptor(() => {
        reached()
        return never()
      }),
    afterSending: false
  },
  {
    name: "onRequest",
    waitingFor: "onRequest",
    config: (reached) => ({
      onRequest: () => {
        reached()
        return never()
      }
    }),
    afterSending: false
  },
  {
    name: "a response interceptor",
    waitingFor: "the response interceptors",
    config: () => ({}),
    setup: (client, reached) =>
      client.addResponseInterceptor(() => {
        reached()
        return never()
      }),
    afterSending: true
  },
  {
    name: "onResponse",
    waitingFor: "onResponse",
    config: (reached) => ({
      onResponse: () => {
        reached()
        return never()
      }
    }),
    afterSending: true
  },
  {
    name: "a getSessionId provider",
    waitingFor: "the session lookup",
    config: (reached) => ({
      getSessionId: () => {
        reached()
        return never()
      }
    }),
    afterSending: false
  },
  {
    name: "a storage adapter",
    waitingFor: "the session lookup",
    config: (reached) => ({
      storage: {
        ...hungStorage,
        getItem: () => {
          reached()
          return never()
        }
      }
    }),
    afterSending: false
  }
]

describe("a hung hook under the timeout (Effect API, TestClock)", () => {
  it.effect.each(hooks)(
    "$name: TimeoutError after the timeout, naming what it waited for",
    (hook) =>
      Effect.gen(function* () {
        const before = server.requests.length
        let reached = 0
        const fiber = yield* withClient(
          server.origin,
          { ...hook.config(() => reached++), timeout: 5_000, retryAttempts: 0 },
          (client) =>
            Effect.andThen(
              hook.setup?.(client, () => reached++) ?? Effect.void,
              Effect.flip(client.get("/x"))
            )
        ).pipe(fork)
        while (reached === 0) yield* flush
        yield* TestClock.adjust("5 seconds")
        const error = yield* Fiber.join(fiber)
        expect(error._tag).toBe("TimeoutError")
        expect(error.message).toBe(
          `Request timed out after 5000 ms waiting for ${hook.waitingFor}: GET ${server.origin}/x`
        )
        expect(server.requests.length - before).toBe(hook.afterSending ? 1 : 0)
      }).pipe(Effect.scoped)
  )

  it.effect(
    "the request interceptors share one deadline, from the first that answers with a promise",
    () =>
      Effect.gen(function* () {
        const releases: Array<() => void> = []
        const later = (config: RequestConfig) =>
          new Promise<RequestConfig>((resolve) => releases.push(() => resolve(config)))
        const fiber = yield* withClient(
          server.origin,
          { timeout: 5_000, retryAttempts: 0 },
          (client) =>
            Effect.andThen(
              Effect.all([
                client.addRequestInterceptor((config) => config),
                client.addRequestInterceptor(later),
                client.addRequestInterceptor((config) => config),
                client.addRequestInterceptor(later)
              ]),
              Effect.flip(client.get("/x"))
            )
        ).pipe(fork)
        while (releases.length === 0) yield* flush
        yield* TestClock.adjust("3 seconds")
        releases[0]!()
        while (releases.length === 1) yield* flush
        // 5 s since the first promise: past the chain's deadline, though the second waited only 2 s
        yield* TestClock.adjust("2 seconds")
        const error = yield* Fiber.join(fiber)
        expect(error._tag).toBe("TimeoutError")
        expect(error.message).toBe(
          `Request timed out after 5000 ms waiting for the request interceptors: GET ${server.origin}/x`
        )
      }).pipe(Effect.scoped)
  )

  it.effect("timeout 0 leaves the application's code all the time it takes", () =>
    Effect.gen(function* () {
      let release!: (config: RequestConfig) => void
      const fiber = yield* withClient(server.origin, { timeout: 0 }, (client) =>
        Effect.andThen(
          client.addRequestInterceptor(
            (config) => new Promise<RequestConfig>((resolve) => (release = () => resolve(config)))
          ),
          client.get("/x")
        )
      ).pipe(fork)
      while (release === undefined) yield* flush
      yield* TestClock.adjust("1 day")
      release({} as RequestConfig)
      const response = yield* Fiber.join(fiber)
      expect(response.success).toBe(true)
    }).pipe(Effect.scoped)
  )
})

describe("a hung storage under a session lookup's timeout (Effect API, TestClock)", () => {
  /** A call of the session's, the storage method it waits on, and what it answers once past it. */
  const calls = [
    {
      name: "hasSession",
      run: (client: SvcClientService) => client.hasSession(),
      answer: false
    },
    {
      name: "getSessionId",
      run: (client: SvcClientService) =>
        Effect.map(client.getSessionId(), (id) => (id._tag === "None" ? "none" : "some")),
      answer: "none"
    }
  ] as const

  it.effect(
    "setSessionId answers once its write has settled, past the timeout: a logout after it is written after it",
    () =>
      Effect.gen(function* () {
        const stored = new Map<string, string>()
        let release!: () => void
        const storage: StorageAdapter = {
          getItem: async (key) => stored.get(key) ?? null,
          setItem: (key, value) =>
            new Promise<void>((resolve) => {
              release = () => {
                stored.set(key, value)
                resolve()
              }
            }),
          removeItem: async (key) => void stored.delete(key)
        }
        const errors: Array<Error> = []
        const fiber = yield* withClient(
          server.origin,
          { storage, timeout: 5_000, onError: (error) => void errors.push(error) },
          (client) =>
            Effect.andThen(client.setSessionId("user-a"), () =>
              Effect.andThen(client.clearSession(), client.hasSession())
            )
        ).pipe(fork)
        while (release === undefined) yield* flush
        yield* TestClock.adjust("1 minute")
        release()
        expect(yield* Fiber.join(fiber)).toBe(false)
        expect([...stored.keys()]).toEqual([])
        expect(errors).toEqual([])
      }).pipe(Effect.scoped)
  )

  it.effect.each(calls)(
    "$name answers once the timeout is up, and onError hears what it waited for",
    (call) =>
      Effect.gen(function* () {
        let reached = 0
        const errors: Array<Error> = []
        const storage: StorageAdapter = {
          ...hungStorage,
          getItem: () => {
            reached++
            return never()
          }
        }
        const fiber = yield* withClient(
          server.origin,
          { storage, timeout: 5_000, onError: (error) => void errors.push(error) },
          (client) => call.run(client) as Effect.Effect<unknown>
        ).pipe(fork)
        while (reached === 0) yield* flush
        yield* TestClock.adjust("4999 millis")
        expect(errors).toEqual([])
        yield* TestClock.adjust("1 millis")
        expect(yield* Fiber.join(fiber)).toBe(call.answer)
        expect(errors.map((error) => [error.name, error.message])).toEqual([
          ["TimeoutError", "Request timed out after 5000 ms waiting for the session lookup"]
        ])
      }).pipe(Effect.scoped)
  )
})

describe("a hung hook under the caller's AbortSignal (facade)", () => {
  it.each(hooks)("$name: ABORTED at once when the signal fires", async (hook) => {
    const controller = new AbortController()
    let reached!: () => void
    const hookReached = new Promise<void>((resolve) => (reached = resolve))
    // no timeout: only the signal can end it
    const svc = createSvc(server.origin, { ...hook.config(reached), timeout: 0 })
    if (hook.name === "a request interceptor") {
      svc.addRequestInterceptor(() => {
        reached()
        return never()
      })
    }
    if (hook.name === "a response interceptor") {
      svc.addResponseInterceptor(() => {
        reached()
        return never()
      })
    }
    const pending = svc.get("/x", { signal: controller.signal })
    await hookReached
    controller.abort()
    expect(await pending).toEqual({
      success: false,
      status: 0,
      error: "Request aborted",
      code: "ABORTED"
    })
  })

  it.each(hooks)("$name: TIMEOUT with the facade's own timer", async (hook) => {
    // 500 ms: time for the server's answer on a loaded machine, when the hook is past it
    const svc = createSvc(server.origin, { ...hook.config(() => undefined), timeout: 500 })
    if (hook.name === "a request interceptor") svc.addRequestInterceptor(never)
    if (hook.name === "a response interceptor") svc.addResponseInterceptor(never)
    expect(await svc.get("/x")).toMatchObject({
      success: false,
      status: 0,
      code: "TIMEOUT",
      error: `Request timed out after 500 ms waiting for ${hook.waitingFor}: GET ${server.origin}/x`
    })
  })
})
