/**
 * `refreshSession` (SPEC 4.9) on both faces, against a real server that expires sessions and
 * counts refreshes. Shared by both Effect lines (an Effect 4 run resolves these imports to the
 * Effect 4 binding).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { it as effectIt } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest"
import { foldError } from "../../src/common/client.js"
import { memoryStorage } from "../../src/Storage/MemoryStorage.js"
import type { StorageAdapter } from "../../src/Storage/StorageAdapter.js"
import {
  type ApiFailure,
  type ApiResponse,
  createSvc,
  type RequestOptions,
  SvcClient,
  type SvcConfig
} from "../../src/v3/Client/index.js"
// what the two Effects spell differently (an Effect 4 run takes test/v4/Auth/lineKit.ts)
import { fork, TestClock } from "../Auth/lineKit.js"

/** The id the client starts with: it must never appear in an error's message. */
const FIRST_ID = "first-session-7f3a"

/** What `/refresh` does: rotate the session, answer no id, fail, or answer 401. */
type RefreshMode = "rotate" | "null" | "fail" | "unauthorized"

interface Hit {
  readonly path: string
  readonly session: string | undefined
}

/**
 * A server whose session expires on demand. `GET /data` answers 200 with the session it got when
 * that session is the valid one, else 401; `POST /refresh` counts its calls and, as `mode` says,
 * makes a new valid session (`s2`, `s3`, …) after `delay` ms; `GET /held` holds a request with a
 * session that is not valid until `release()`, then answers 401; `GET /always-401` always answers
 * 401; `GET /flaky` answers 503 `flaky` times before behaving as `/data`; `GET /away` redirects
 * to `away` (another origin).
 */
const startAuthServer = async () => {
  const state = {
    valid: FIRST_ID as string | undefined,
    next: 2,
    mode: "rotate" as RefreshMode,
    delay: 0,
    refreshes: 0,
    flaky: 0,
    away: "",
    hits: [] as Array<Hit>,
    held: [] as Array<() => void>
  }
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(JSON.stringify(body))
  }
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    const session = req.headers["x-session-id"] as string | undefined
    state.hits.push({ path, session })
    const data = () =>
      session !== undefined && session === state.valid
        ? json(res, 200, { success: true, data: { session } })
        : json(res, 401, { success: false, error: "Invalid session" })
    switch (path) {
      case "/data":
        return data()
      case "/held":
        if (session !== undefined && session === state.valid) return data()
        state.held.push(() => json(res, 401, { success: false, error: "Invalid session" }))
        return
      case "/always-401":
        return json(res, 401, { success: false, error: "Invalid session" })
      case "/flaky":
        if (session === state.valid && state.flaky > 0) {
          state.flaky--
          return json(res, 503, { success: false, error: "busy" })
        }
        return data()
      case "/away":
        res.writeHead(302, { location: `${state.away}/data` })
        return res.end()
      case "/refresh":
        state.refreshes++
        setTimeout(() => {
          switch (state.mode) {
            case "rotate":
              state.valid = `s${state.next++}`
              return json(res, 200, { success: true, data: { session_id: state.valid } })
            case "null":
              return json(res, 200, { success: true, data: { session_id: null } })
            case "fail":
              return json(res, 500, { success: false, error: "refresh store down" })
            case "unauthorized":
              return json(res, 401, { success: false, error: "Invalid session" })
          }
        }, state.delay)
        return
      default:
        return json(res, 404, { success: false, error: "not found" })
    }
  }
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => handle(req, res))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    origin,
    state,
    /** Expires the current session: every id the client has is now refused. */
    expire: () => {
      state.valid = undefined
    },
    reset: () => {
      Object.assign(state, {
        valid: FIRST_ID,
        next: 2,
        mode: "rotate",
        delay: 0,
        refreshes: 0,
        flaky: 0,
        hits: [],
        held: []
      })
    },
    hitsOf: (path: string) => state.hits.filter((hit) => hit.path === path),
    waitForHeld: async (count: number) => {
      while (state.held.length < count) await new Promise((resolve) => setTimeout(resolve, 5))
    },
    release: () => {
      for (const answer of state.held.splice(0)) answer()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

type AuthServer = Awaited<ReturnType<typeof startAuthServer>>

let server: AuthServer
let other: AuthServer
beforeAll(async () => {
  server = await startAuthServer()
  other = await startAuthServer()
  server.state.away = other.origin
})
afterAll(async () => {
  await server.close()
  await other.close()
})
beforeEach(() => {
  server.reset()
  other.reset()
  server.state.away = other.origin
})

/** How the refresh behaves on the client's side: calls `/refresh`, or never answers. */
type Script = "endpoint" | "hang"

/** A client on one face, its calls as promises of an `ApiResponse`. */
interface Client {
  readonly get: (endpoint: string, options?: RequestOptions) => Promise<ApiResponse<unknown>>
  readonly getSessionId: () => Promise<string | null>
  readonly setSessionId: (id: string) => Promise<void>
  readonly clearSession: () => Promise<void>
}

interface Settings {
  readonly script?: Script
  readonly storage?: StorageAdapter
  readonly onError?: (error: Error) => void
  readonly onResponse?: (response: ApiResponse<unknown>) => void
  readonly timeout?: number
  readonly totalTimeout?: number
  readonly retryAttempts?: number
}

/** What the refresh saw: the 401 it was called with. */
let failures: Array<ApiFailure> = []
/** Refreshes the Effect API's `hang` script saw interrupted. */
let interruptedRefreshes = 0
beforeEach(() => {
  failures = []
  interruptedRefreshes = 0
})

/** The config both faces share: everything but `refreshSession`. */
const common = (settings: Settings): SvcConfig => ({
  sessionId: FIRST_ID,
  storage: settings.storage ?? memoryStorage(),
  ...(settings.onError === undefined ? {} : { onError: settings.onError }),
  ...(settings.onResponse === undefined ? {} : { onResponse: settings.onResponse }),
  ...(settings.timeout === undefined ? {} : { timeout: settings.timeout }),
  ...(settings.totalTimeout === undefined ? {} : { totalTimeout: settings.totalTimeout }),
  ...(settings.retryAttempts === undefined ? {} : { retryAttempts: settings.retryAttempts })
})

const faces: ReadonlyArray<readonly [string, (origin: string, settings: Settings) => Client]> = [
  [
    "facade",
    (origin, settings) => {
      const svc = createSvc(origin, {
        ...common(settings),
        refreshSession: async (failed, client) => {
          failures.push(failed)
          if (settings.script === "hang") return new Promise<never>(() => undefined)
          const renewed = await client.post<{ session_id: string | null }>("/refresh")
          if (!renewed.success) throw new Error(`refresh refused: ${renewed.error}`)
          return renewed.data.session_id
        }
      })
      return {
        get: (endpoint, options) => svc.get(endpoint, options),
        getSessionId: () => svc.getSessionId(),
        setSessionId: (id) => svc.setSessionId(id),
        clearSession: () => svc.clearSession()
      }
    }
  ],
  [
    "Effect API (layerDefault)",
    (origin, settings) => {
      const api = Effect.runSync(
        Effect.provide(
          SvcClient,
          SvcClient.layerDefault(origin, {
            ...common(settings),
            refreshSession: (failed, client) => {
              failures.push(failed)
              if (settings.script === "hang") {
                return Effect.onInterrupt(Effect.never, () =>
                  Effect.sync(() => {
                    interruptedRefreshes++
                  })
                )
              }
              return Effect.map(
                client.post<{ session_id: string | null }>("/refresh"),
                (renewed) => renewed.data.session_id
              )
            }
          })
        )
      )
      const run = <A>(program: Effect.Effect<A, never>) => Effect.runPromise(program)
      return {
        get: (endpoint, options) =>
          run(
            Effect.match(api.get(endpoint, options), {
              onFailure: (error): ApiResponse<unknown> => foldError(error),
              onSuccess: (response): ApiResponse<unknown> => response
            })
          ),
        getSessionId: () =>
          run(
            Effect.map(api.getSessionId(), (id) =>
              Option.isSome(id) ? Redacted.value(id.value) : null
            )
          ),
        setSessionId: (id) => run(api.setSessionId(id)),
        clearSession: () => run(api.clearSession())
      }
    }
  ]
]

const statusOf = (response: ApiResponse<unknown>) => response.status
const sessionOf = (response: ApiResponse<unknown>) =>
  response.success ? (response.data as { session: string }).session : undefined

describe.each(faces)("refreshSession (%s)", (face, make) => {
  it("50 concurrent requests after an expiry: exactly one refresh, all sent again with the new id", async () => {
    const storage = memoryStorage()
    const seen: Array<number> = []
    const client = make(server.origin, { storage, onResponse: (r) => seen.push(r.status) })
    expect(sessionOf(await client.get("/data"))).toBe(FIRST_ID)
    seen.length = 0
    server.expire()
    server.state.delay = 50
    const responses = await Promise.all(Array.from({ length: 50 }, () => client.get("/data")))
    expect(server.state.refreshes).toBe(1)
    expect(responses.map(statusOf)).toEqual(Array(50).fill(200))
    expect(responses.map(sessionOf)).toEqual(Array(50).fill("s2"))
    // onResponse saw each request's final outcome and the refresh's own request (a request of
    // the client too), never a 401 refreshed away
    expect(seen).toEqual(Array(51).fill(200))
    // the refresh got the 401 and went through the client, with the old id
    expect(failures).toHaveLength(1)
    expect(failures[0]).toMatchObject({ success: false, status: 401, code: "HTTP_ERROR" })
    expect(server.hitsOf("/refresh")).toEqual([{ path: "/refresh", session: FIRST_ID }])
    // each request was sent twice at most: once with the old id, once with the new
    const data = server.hitsOf("/data").slice(1)
    expect(data.filter((hit) => hit.session === FIRST_ID)).toHaveLength(50)
    expect(data.filter((hit) => hit.session === "s2")).toHaveLength(50)
    // setSessionId ran: the client and its storage have the new id
    expect(await client.getSessionId()).toBe("s2")
    expect(await storage.getItem("svc_session_id")).toBe("s2")
  })

  it("a 401 for an id a refresh already replaced is sent once more with the current id, without refreshing again", async () => {
    const client = make(server.origin, {})
    server.expire()
    const stale = client.get("/held")
    await server.waitForHeld(1)
    // another request refreshes meanwhile
    expect(sessionOf(await client.get("/data"))).toBe("s2")
    server.release()
    const response = await stale
    expect(response).toMatchObject({ success: true, status: 200 })
    expect(sessionOf(response)).toBe("s2")
    expect(server.state.refreshes).toBe(1)
    expect(server.hitsOf("/held")).toEqual([
      { path: "/held", session: FIRST_ID },
      { path: "/held", session: "s2" }
    ])
  })

  it("a 401 after the session was cleared resolves with that 401 and is not sent again", async () => {
    const client = make(server.origin, {})
    server.expire()
    const pending = client.get("/held")
    await server.waitForHeld(1)
    await client.clearSession()
    server.release()
    const response = await pending
    expect(response).toMatchObject({ success: false, status: 401, code: "HTTP_ERROR" })
    expect(server.state.refreshes).toBe(0)
    expect(failures).toHaveLength(0)
    expect(server.hitsOf("/held")).toHaveLength(1)
  })

  /** Until the refresh's request has reached the server (it answers after `state.delay`). */
  const refreshUnderWay = async () => {
    while (server.state.refreshes === 0) await new Promise((resolve) => setTimeout(resolve, 5))
  }

  it("clearSession while the refresh is under way: its new id is dropped, nothing stored, the request its own 401", async () => {
    const storage = memoryStorage([["svc_session_id", FIRST_ID]])
    const client = make(server.origin, { storage })
    server.expire()
    server.state.delay = 100
    const pending = client.get("/data")
    await refreshUnderWay()
    await client.clearSession()
    expect(await pending).toMatchObject({ success: false, status: 401, code: "HTTP_ERROR" })
    expect(await client.getSessionId()).toBeNull()
    expect(await storage.getItem("svc_session_id")).toBeNull()
    expect(server.hitsOf("/data")).toHaveLength(1)
    // the renewed session is not sent either
    await client.get("/data")
    expect(server.hitsOf("/data").map((hit) => hit.session)).toEqual([FIRST_ID, undefined])
  })

  it("clearSession while the refresh's new id is being stored: storage ends empty, nothing sent again", async () => {
    // a storage whose writes wait to be let through
    const stored = new Map([["svc_session_id", FIRST_ID]])
    let writing: () => void = () => undefined
    const aWrite = new Promise<void>((resolve) => {
      writing = resolve
    })
    let letThrough: () => void = () => undefined
    const storage: StorageAdapter = {
      getItem: async (key) => stored.get(key) ?? null,
      setItem: (key, value) =>
        new Promise<void>((resolve) => {
          letThrough = () => {
            stored.set(key, value)
            resolve()
          }
          writing()
        }),
      removeItem: async (key) => {
        stored.delete(key)
      }
    }
    const client = make(server.origin, { storage })
    server.expire()
    const pending = client.get("/data")
    await aWrite
    await client.clearSession()
    letThrough()
    expect(await pending).toMatchObject({ success: false, status: 401, code: "HTTP_ERROR" })
    expect(await client.getSessionId()).toBeNull()
    expect(stored.get("svc_session_id")).toBeUndefined()
    expect(server.hitsOf("/data")).toHaveLength(1)
  })

  it.each([
    ["succeeds", "rotate" as const],
    ["fails", "fail" as const]
  ])(
    "setSessionId while the refresh is under way (it %s): the session set stays, and the request is sent once more with it",
    async (_what, mode) => {
      const storage = memoryStorage([["svc_session_id", FIRST_ID]])
      const client = make(server.origin, { storage, onError: () => undefined })
      server.expire()
      server.state.mode = mode
      server.state.delay = 100
      const pending = client.get("/data")
      await refreshUnderWay()
      await client.setSessionId("signed-in-again")
      server.state.valid = "signed-in-again"
      const response = await pending
      expect(await client.getSessionId()).toBe("signed-in-again")
      expect(await storage.getItem("svc_session_id")).toBe("signed-in-again")
      expect(server.hitsOf("/data").map((hit) => hit.session)).toEqual([
        FIRST_ID,
        "signed-in-again"
      ])
      // a refresh that succeeded made the server rotate past it: the request's outcome is the
      // server's answer to the session set, whatever it is
      if (mode === "fail") expect(sessionOf(response)).toBe("signed-in-again")
      else expect(response).toMatchObject({ success: false, status: 401 })
    }
  )

  it.each([
    ["fails", "fail" as const, /^refreshSession failed: .*(refresh store down)/],
    ["answers no id", "null" as const, /^refreshSession answered no session id/],
    [
      "gets a 401 itself (no refresh of the refresh, no deadlock)",
      "unauthorized" as const,
      /^refreshSession failed: .*Invalid session/
    ]
  ])(
    "when the refresh %s: clearSession, one onError, every request its own 401",
    async (_what, mode, message) => {
      const storage = memoryStorage([["svc_session_id", FIRST_ID]])
      const errors: Array<Error> = []
      const client = make(server.origin, { storage, onError: (e) => errors.push(e) })
      server.expire()
      server.state.mode = mode
      server.state.delay = 30
      const responses = await Promise.all(Array.from({ length: 5 }, () => client.get("/data")))
      expect(responses.map((r) => [r.success, r.status, r.success ? "" : r.code])).toEqual(
        Array(5).fill([false, 401, "HTTP_ERROR"])
      )
      expect(server.state.refreshes).toBe(1)
      // not sent again: one try each
      expect(server.hitsOf("/data")).toHaveLength(5)
      expect(await client.getSessionId()).toBeNull()
      expect(await storage.getItem("svc_session_id")).toBeNull()
      const refreshErrors = errors.filter((e) => e.message.startsWith("refreshSession"))
      expect(refreshErrors).toHaveLength(1)
      expect(refreshErrors[0]).toBeInstanceOf(Error)
      expect(refreshErrors[0]!.message).toMatch(message)
      // besides: each request's own 401, and the failure of the refresh's own request, if any
      const httpErrors = errors.filter((e) => (e as { _tag?: string })._tag === "HttpError")
      expect(httpErrors).toHaveLength(mode === "null" ? 5 : 6)
      expect(errors).toHaveLength(httpErrors.length + 1)
      for (const error of errors) expect(error.message).not.toContain(FIRST_ID)
    }
  )

  it("when the refresh runs past the request's timeout: clearSession, one onError naming the timeout, every request its own 401", async () => {
    const errors: Array<Error> = []
    const client = make(server.origin, {
      script: "hang",
      // long enough for the requests themselves to answer 401 first on a loaded machine
      timeout: 1_000,
      onError: (e) => errors.push(e)
    })
    server.expire()
    const responses = await Promise.all(Array.from({ length: 3 }, () => client.get("/data")))
    expect(responses.map(statusOf)).toEqual([401, 401, 401])
    expect(failures).toHaveLength(1)
    expect(await client.getSessionId()).toBeNull()
    const timeouts = errors.filter((e) => /refreshSession timed out after 1000 ms/.test(e.message))
    expect(timeouts).toHaveLength(1)
    expect(errors.filter((e) => (e as { _tag?: string })._tag === "HttpError")).toHaveLength(3)
    // the Effect API's refresh is interrupted at its timeout
    if (face !== "facade") await vi.waitFor(() => expect(interruptedRefreshes).toBe(1))
  })

  it("totalTimeout covers the wait for the refresh", async () => {
    const client = make(server.origin, { script: "hang", timeout: 0, totalTimeout: 150 })
    server.expire()
    const started = Date.now()
    const response = await client.get("/data")
    expect(response).toMatchObject({ success: false, code: "TIMEOUT" })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(failures).toHaveLength(1)
  })

  it("no loop: a server that keeps answering 401 gets one refresh and one re-send", async () => {
    const seen: Array<number> = []
    const client = make(server.origin, { onResponse: (r) => seen.push(r.status) })
    const response = await client.get("/always-401")
    expect(response).toMatchObject({ success: false, status: 401 })
    expect(server.state.refreshes).toBe(1)
    expect(server.hitsOf("/always-401").map((hit) => hit.session)).toEqual([FIRST_ID, "s2"])
    // the refresh's own 200, then the request's final 401: not the one refreshed away
    expect(seen).toEqual([200, 401])
  })

  it("the re-send is not counted against retryAttempts", async () => {
    const client = make(server.origin, { retryAttempts: 1 })
    server.expire()
    server.state.flaky = 1
    const response = await client.get("/flaky")
    // 401 (old id), refresh, 503 (new id), one retry: 200
    expect(response).toMatchObject({ success: true, status: 200 })
    expect(server.hitsOf("/flaky").map((hit) => hit.session)).toEqual([FIRST_ID, "s2", "s2"])
    const once = make(server.origin, { retryAttempts: 0 })
    server.reset()
    server.expire()
    expect(await once.get("/data")).toMatchObject({ success: true, status: 200 })
    expect(server.state.refreshes).toBe(1)
  })

  it("a 401 from another origin (absolute URL) never refreshes, and the session never goes there", async () => {
    const client = make(server.origin, {})
    const response = await client.get(`${other.origin}/always-401`)
    expect(response).toMatchObject({ success: false, status: 401 })
    expect(server.state.refreshes + other.state.refreshes).toBe(0)
    expect(failures).toHaveLength(0)
    expect(other.hitsOf("/always-401")).toEqual([{ path: "/always-401", session: undefined }])
  })

  it("a 401 after a redirect to another origin never refreshes, and the session never goes there", async () => {
    const client = make(server.origin, {})
    const response = await client.get("/away")
    expect(response).toMatchObject({ success: false, status: 401 })
    expect(server.state.refreshes + other.state.refreshes).toBe(0)
    expect(other.state.hits).toEqual([{ path: "/data", session: undefined }])
    expect(server.hitsOf("/away")).toHaveLength(1)
  })
})

describe("refreshSession, the Effect API on TestClock", () => {
  effectIt.effect(
    "a refresh that runs past the request's timeout ends it: clearSession, one onError, its own 401",
    () =>
      Effect.gen(function* () {
        server.reset()
        server.expire()
        const errors: Array<Error> = []
        const client = yield* Effect.provide(
          SvcClient,
          SvcClient.layerDefault(server.origin, {
            sessionId: FIRST_ID,
            storage: memoryStorage(),
            timeout: "10 seconds",
            onError: (e) => errors.push(e),
            refreshSession: () => Effect.never
          })
        )
        const fiber = yield* fork(Effect.flip(client.get("/data")))
        // the 401 comes over the network; the refresh then waits on the test clock
        while (errors.length === 0) {
          yield* TestClock.adjust("1 second")
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
        }
        const error = yield* Fiber.join(fiber)
        expect(error).toMatchObject({ _tag: "HttpError", status: 401 })
        expect(errors[0]?.message).toBe("refreshSession timed out after 10000 ms")
        expect(errors.filter((e) => /timed out/.test(e.message))).toHaveLength(1)
        expect((yield* client.getSessionId())._tag).toBe("None")
      })
  )
})

describe("refreshSession, checked at construction", () => {
  it("a value that is not a function is a TypeError naming refreshSession, on both faces", () => {
    const bad = { refreshSession: 42 } as unknown as SvcConfig
    expect(() => createSvc(server.origin, bad)).toThrow(TypeError)
    expect(() => createSvc(server.origin, bad)).toThrow(/refreshSession must be a function/)
    expect(() => SvcClient.layerDefault(server.origin, bad)).toThrow(
      /refreshSession must be a function/
    )
  })

  it("is typed per face: an Effect on the Effect API, a value or promise on the facade", () => {
    const onEffect: SvcConfig<"effect"> = { refreshSession: () => Effect.succeed("id") }
    const onFacade: SvcConfig<"promise"> = { refreshSession: async () => "id" }
    // @ts-expect-error the Effect API's refreshSession answers an Effect
    const promiseOnEffect: SvcConfig<"effect"> = { refreshSession: async () => "id" }
    // @ts-expect-error a plain SvcConfig fits both faces, and has no refreshSession
    const plain: SvcConfig = { refreshSession: async () => "id" }
    expect([onEffect, onFacade, promiseOnEffect, plain]).toHaveLength(4)
  })

  it("without refreshSession a 401 is an ordinary HTTP_ERROR", async () => {
    server.expire()
    const svc = createSvc(server.origin, { sessionId: FIRST_ID, storage: memoryStorage() })
    expect(await svc.get("/data")).toMatchObject({
      success: false,
      status: 401,
      code: "HTTP_ERROR"
    })
    expect(server.state.refreshes).toBe(0)
    expect(server.hitsOf("/data")).toHaveLength(1)
  })
})
