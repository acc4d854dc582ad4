/**
 * Values the caller hands over that cannot be read — a getter that throws, a Proxy whose traps
 * throw (itself, even), a revoked Proxy, an object with no text (`Object.create(null)`) — given as
 * options, answered by an interceptor, thrown by a session lookup or by `config.fetch`: the facade
 * resolves (never rejects, never leaves a call pending), the Effect API fails with a typed error
 * (never a defect), and the process hears of no uncaught exception.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { afterAll, beforeAll } from "vitest"
import {
  createSvc,
  type RequestOptions,
  SvcClient,
  type SvcClientService,
  type SvcConfig
} from "../../src/v3/Client/index.js"
import { json, startServer, type TestServer } from "./server.js"
import { nodeTransports } from "./transports.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() => json({ data: 1, success: true }))
})
afterAll(() => server.close())

const throwing = (): Error => new Error("boom")
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}
/** A Proxy whose every trap throws the Proxy itself: `String`, `instanceof` and reading it throw. */
const selfThrowing = (): object => {
  const proxy: object = new Proxy(
    {},
    {
      get: () => {
        throw proxy
      },
      has: () => {
        throw proxy
      },
      getPrototypeOf: () => {
        throw proxy
      },
      ownKeys: () => {
        throw proxy
      },
      getOwnPropertyDescriptor: () => {
        throw proxy
      }
    }
  )
  return proxy
}
const trapsThrow = () =>
  new Proxy(
    {},
    {
      get: () => {
        throw throwing()
      },
      has: () => {
        throw throwing()
      },
      getPrototypeOf: () => {
        throw throwing()
      }
    }
  )

const unreadableOptions: ReadonlyArray<readonly [string, () => unknown, string]> = [
  [
    "a headers getter that throws",
    () => ({
      get headers(): never {
        throw throwing()
      }
    }),
    "options could not be read: boom"
  ],
  ["a revoked Proxy", revoked, "options could not be read: "],
  [
    "a schema whose traps throw",
    () => ({ schema: trapsThrow() }),
    "options could not be read: boom"
  ],
  [
    "a retrySchedule whose traps throw",
    () => ({ retrySchedule: trapsThrow() }),
    "options could not be read: boom"
  ],
  [
    "a parameter whose getter throws",
    () => ({
      params: {
        get page(): never {
          throw throwing()
        }
      }
    }),
    "options could not be read: boom"
  ],
  [
    "a signal whose aborted throws",
    () => ({
      signal: {
        get aborted(): never {
          throw throwing()
        }
      }
    }),
    "options could not be read: boom"
  ],
  [
    "a timeout that throws itself at every trap",
    () => ({ timeout: selfThrowing() }),
    "options could not be read: an object"
  ]
]

/** The Effect API's client over its own transport, made once per test. */
const effectClient = (config: SvcConfig = {}) =>
  Effect.provide(
    SvcClient,
    SvcClient.layerDefault(server.origin, { retryAttempts: 0, ...config })
  ) as Effect.Effect<SvcClientService>

/** Sets the process's uncaught-exception and unhandled-rejection listeners aside while `f` runs. */
const hearingUncaught = async <A>(f: () => Promise<A>) => {
  const heard: Array<unknown> = []
  const listen = (value: unknown) => void heard.push(value)
  const saved = {
    uncaughtException: process.listeners("uncaughtException"),
    unhandledRejection: process.listeners("unhandledRejection")
  }
  process.removeAllListeners("uncaughtException")
  process.removeAllListeners("unhandledRejection")
  process.on("uncaughtException", listen)
  process.on("unhandledRejection", listen)
  try {
    const result = await f()
    // a rejection nobody handles is told after the turn
    await new Promise((resolve) => setTimeout(resolve, 20))
    return { result, heard: heard.length }
  } finally {
    process.removeListener("uncaughtException", listen)
    process.removeListener("unhandledRejection", listen)
    for (const [event, listeners] of Object.entries(saved)) {
      for (const listener of listeners) process.on(event as "uncaughtException", listener as never)
    }
  }
}

describe("options that cannot be read are INVALID_REQUEST, nothing sent", () => {
  for (const [name, make] of nodeTransports) {
    for (const [what, options, message] of unreadableOptions) {
      it(`facade (${name}): ${what}`, async () => {
        const before = server.requests.length
        const svc = createSvc(server.origin, make)
        for (const call of [
          () => svc.get("/x", options() as RequestOptions),
          () => svc.stream("/x", options() as never),
          () => svc.sse("/x", options() as never)
        ]) {
          const response = await call()
          expect(response).toMatchObject({ success: false, code: "INVALID_REQUEST" })
          expect(response.success === false && response.error).toContain(message)
        }
        expect(server.requests.length).toBe(before)
      })
    }
  }

  for (const [what, options, message] of unreadableOptions) {
    it.effect(`Effect API: ${what}, a typed failure and no defect`, () =>
      Effect.gen(function* () {
        const before = server.requests.length
        const client = yield* effectClient()
        for (const call of [
          client.get("/x", options() as RequestOptions),
          Stream.runDrain(client.stream("/x", options() as never)),
          Stream.runDrain(client.sse("/x", options() as never))
        ]) {
          // a defect would end this test's own Effect with it
          const failure = yield* Effect.flip(call)
          expect(failure._tag).toBe("InvalidRequestError")
          expect(failure.message).toContain(message)
        }
        expect(server.requests.length).toBe(before)
      })
    )
  }
})

describe("an interceptor's answer that cannot be read", () => {
  it("is INTERCEPTOR_ERROR on the facade, and a typed failure on the Effect API", async () => {
    const svc = createSvc(server.origin)
    svc.addRequestInterceptor((config) => ({ ...config, headers: revoked() as never }))
    expect(await svc.get("/x")).toMatchObject({ success: false, code: "INTERCEPTOR_ERROR" })
    // a defect would reject this run with it
    const failure = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* effectClient()
        yield* client.addRequestInterceptor((config) => ({
          ...config,
          headers: revoked() as never
        }))
        return yield* Effect.flip(client.get("/x"))
      })
    )
    expect(failure._tag).toBe("InterceptorError")
  })
})

describe("a session lookup that fails with a value with no text", () => {
  const lookups: ReadonlyArray<readonly [string, SvcConfig]> = [
    ["getSessionId", { getSessionId: () => Promise.reject(Object.create(null)) }],
    [
      "storage.getItem",
      {
        storage: {
          getItem: () => Promise.reject(Object.create(null)),
          setItem: async () => undefined,
          removeItem: async () => undefined
        }
      }
    ]
  ]
  for (const [what, config] of lookups) {
    it(`${what}: the request goes without a session, onError hears it (facade)`, async () => {
      const heard: Array<unknown> = []
      const before = server.requests.length
      const svc = createSvc(server.origin, { ...config, onError: (error) => heard.push(error) })
      expect(await svc.get("/x")).toMatchObject({ success: true, data: 1 })
      expect(server.requests.length).toBe(before + 1)
      expect(server.requests.at(-1)!.headers["x-session-id"]).toBeUndefined()
      expect(heard).toHaveLength(1)
      expect(heard[0]).toBeInstanceOf(Error)
      expect((heard[0] as Error).message).toContain("an object")
    })

    it.effect(`${what}: the request goes without a session (Effect API)`, () =>
      Effect.gen(function* () {
        const client = yield* effectClient(config)
        expect((yield* client.get("/x")).data).toBe(1)
      })
    )
  }

  it("getSessionId throwing a Proxy that throws itself: the facade resolves, nothing uncaught", async () => {
    const svc = createSvc(server.origin, {
      getSessionId: () => {
        throw selfThrowing()
      }
    })
    const { result, heard } = await hearingUncaught(() => svc.get("/x"))
    expect(result).toMatchObject({ success: true, data: 1 })
    expect(heard).toBe(0)
  })
})

describe("config.fetch rejecting with a value with no text", () => {
  const rejecting = () => Promise.reject(Object.create(null))

  it("the facade resolves NETWORK_ERROR at once, even with no timeout, and nothing is unhandled", async () => {
    const svc = createSvc(server.origin, { fetch: rejecting, timeout: 0, retryAttempts: 0 })
    const { result, heard } = await hearingUncaught(() => svc.get("/x"))
    expect(result).toMatchObject({ success: false, code: "NETWORK_ERROR" })
    expect(heard).toBe(0)
  })

  it.effect("the Effect API fails with a NetworkError, even with no timeout", () =>
    Effect.gen(function* () {
      const client = yield* effectClient({ fetch: rejecting, timeout: 0 })
      const error = yield* Effect.flip(client.get("/x"))
      expect(error._tag).toBe("NetworkError")
    })
  )
})
