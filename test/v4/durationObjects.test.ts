/**
 * Effect 4's duration objects (`Duration.Input`'s `{ seconds: 5 }`) are read wherever svc-sdk
 * takes a duration, and only with the keys a duration object has: a misspelt key or an empty
 * object, which Effect 4 would read as no time at all, is the option's error
 * (test/Client/invalid.test.ts, test/Auth/shared/construction.ts, on both lines).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { setSessionCookie } from "../../src/Auth/index.js"
import { SvcClient } from "../../src/Client/index.js"
import { startServer } from "../Client/server.js"
import { HttpServerResponse, toWebHandler } from "./Auth/lineKit.js"

/** The `Set-Cookie` headers of a response, as a server sends them. */
const setCookies = async (response: HttpServerResponse.HttpServerResponse) => {
  const handler = toWebHandler(Effect.succeed(response))
  return (await handler(new Request("http://localhost/"))).headers.getSetCookie()
}

describe("Effect 4 duration objects", () => {
  it.effect("a request's timeout of { seconds: 1 } is a second (TestClock)", () =>
    Effect.gen(function* () {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => startServer(() => ({ hang: true }))),
        (s) => Effect.promise(() => s.close())
      )
      const fiber = yield* Effect.flatMap(SvcClient, (client) =>
        Effect.flip(client.get("/slow", { timeout: { seconds: 1 } }))
      ).pipe(
        Effect.provide(SvcClient.layerDefault(server.origin, { retryAttempts: 0 })),
        Effect.forkChild
      )
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* TestClock.adjust("999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      expect(error._tag).toBe("TimeoutError")
      expect(error.message).toBe(`Request timed out after 1000 ms: GET ${server.origin}/slow`)
    })
  )

  it("a plain object needs a known key with a value; a class's instance (Temporal.Duration's kind) is Effect's to read", () => {
    /** A duration as `Temporal.Duration` gives it: getters on its prototype, no own keys. */
    class Getters {
      get seconds() {
        return 2
      }
    }
    expect(() =>
      SvcClient.layerDefault("http://h", { timeout: new Getters() as never })
    ).not.toThrow()
    expect(() =>
      SvcClient.layerDefault("http://h", { timeout: { seconds: undefined } as never })
    ).toThrow(/timeout must be a number of milliseconds or a Duration/)
    expect(() =>
      SvcClient.layerDefault("http://h", { timeout: { seconds: 2, second: undefined } as never })
    ).not.toThrow()
  })

  it("a persistent cookie of { days: 7, hours: 1 }; a misspelt one is refused", async () => {
    const cookies = await setCookies(
      setSessionCookie(HttpServerResponse.empty(), "abc", { persistent: { days: 7, hours: 1 } })
    )
    expect(cookies).toEqual([expect.stringMatching(/^session_id=abc; Max-Age=608400; /)])
    expect(() =>
      setSessionCookie(HttpServerResponse.empty(), "abc", { persistent: { day: 7 } as never })
    ).toThrow(/options\.persistent must be/)
  })
})
