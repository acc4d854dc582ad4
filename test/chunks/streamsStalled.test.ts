/**
 * svc-sdk loads its stream programs on a stream's first call. When they do not come (a browser's
 * chunk stalled on a bad network), the call still ends by its signal and its `totalTimeout`, as its
 * request would, and says so to `onError`: on both faces, for `stream` and `sse`. A file of its
 * own: the stream programs' module is replaced, for this file's worker alone, by one that never
 * loads.
 */
import { it as effectIt } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { expect, it, vi } from "vitest"
import { createSvc, SvcClient, type SvcError } from "../../src/v3/Client/index.js"
import { fork, TestClock, timerArmed } from "../Auth/lineKit.js"

vi.mock("../../src/common/streams.ts", () => new Promise(() => undefined))

// never contacted: the call ends before its request
const origin = "http://127.0.0.1:9"

const methods = ["stream", "sse"] as const

it.each(methods)("the facade's %s ends by its signal while its programs load", async (method) => {
  const reported: Array<unknown> = []
  const svc = createSvc(origin, { onError: (error) => reported.push(error) })
  const controller = new AbortController()
  const answer = svc[method]("/x", { signal: controller.signal })
  setTimeout(() => controller.abort(new Error("user left")), 20)
  expect(await answer).toMatchObject({ success: false, code: "ABORTED", status: 0 })
  expect(reported).toEqual([expect.objectContaining({ _tag: "AbortedError" })])
})

it.each(methods)("the facade's %s ends by an aborted signal at once", async (method) => {
  const reported: Array<unknown> = []
  const svc = createSvc(origin, { onError: (error) => reported.push(error) })
  const answer = await svc[method]("/x", { signal: AbortSignal.abort() })
  expect(answer).toMatchObject({ success: false, code: "ABORTED" })
  expect(reported).toEqual([expect.objectContaining({ _tag: "AbortedError" })])
})

it.each(methods)(
  "the facade's %s ends by its totalTimeout while its programs load",
  async (method) => {
    const reported: Array<unknown> = []
    const svc = createSvc(origin, { totalTimeout: 50, onError: (error) => reported.push(error) })
    const answer = await svc[method]("/x", { method: "POST", body: { q: 1 } })
    expect(answer).toMatchObject({
      success: false,
      status: 0,
      code: "TIMEOUT",
      error: `Request timed out after 50 ms (totalTimeout): POST ${origin}/x`
    })
    expect(reported).toEqual([
      expect.objectContaining({
        _tag: "TimeoutError",
        timeoutMillis: 50,
        total: true,
        method: "POST",
        url: `${origin}/x`
      })
    ])
  }
)

it.each(methods)("the facade's %s with no limit keeps waiting", async (method) => {
  const svc = createSvc(origin)
  const answer = svc[method]("/x")
  const first = await Promise.race([answer, new Promise((r) => setTimeout(() => r("waiting"), 50))])
  expect(first).toBe("waiting")
})

for (const method of methods) {
  effectIt.effect(`the Effect API's ${method} ends by totalTimeout on the test clock`, () =>
    Effect.gen(function* () {
      const reported: Array<unknown> = []
      const client = yield* Effect.provide(
        SvcClient,
        SvcClient.layerDefault(origin, {
          totalTimeout: "10 seconds",
          onError: (error) => reported.push(error)
        })
      )
      const fiber = yield* fork(
        Effect.flip(Stream.runDrain(client[method]("/x") as Stream.Stream<unknown, SvcError>))
      )
      yield* timerArmed
      yield* TestClock.adjust("10 seconds")
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({
        _tag: "TimeoutError",
        timeoutMillis: 10_000,
        total: true,
        method: "GET"
      })
      expect(reported).toEqual([error])
    })
  )

  effectIt.effect(`the Effect API's ${method} ends by its signal`, () =>
    Effect.gen(function* () {
      const client = yield* Effect.provide(SvcClient, SvcClient.layerDefault(origin))
      const controller = new AbortController()
      const fiber = yield* fork(
        Effect.flip(
          Stream.runDrain(
            client[method]("/x", { signal: controller.signal }) as Stream.Stream<unknown, SvcError>
          )
        )
      )
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      controller.abort()
      const error = yield* Fiber.join(fiber)
      expect(error).toMatchObject({ _tag: "AbortedError", code: "ABORTED" })
    })
  )
}
