/**
 * svc-sdk loads its stream programs on a stream's first call. When they come late (a browser's
 * chunk on a slow network), the call's `totalTimeout` counts from the call's start, not from
 * their arrival, and what watched the wait for them is gone before the call goes on (an `onError`
 * that aborts the signal does not turn the call's own failure into another). A file of its own:
 * the stream programs' module comes 300 ms late, for this file's worker alone; each test takes a
 * client module of its own, whose programs have not come yet.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type * as StreamT from "effect/Stream"
import { afterAll, beforeAll, expect, it, vi } from "vitest"

/**
 * The client, Effect and Stream, as modules of their own: no stream call has loaded anything, and
 * the stream programs come 300 ms after a call asks for them.
 */
const fresh = async () => {
  vi.resetModules()
  vi.doMock("../../src/common/streams.ts", async (importOriginal) => {
    await new Promise((resolve) => setTimeout(resolve, 300))
    return importOriginal()
  })
  const [client, Effect, Stream] = await Promise.all([
    import("../../src/v3/Client/index.js"),
    import("effect/Effect"),
    import("effect/Stream")
  ])
  return { ...client, Effect, Stream }
}

// answers its headers 400 ms after a request: with the programs' 300 ms, past a 500 ms limit
let server: Http.Server
let origin = ""
beforeAll(async () => {
  server = Http.createServer((_, response) => {
    setTimeout(() => {
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.end("data: late\n\n")
    }, 400)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const methods = ["stream", "sse"] as const

it.each(methods)(
  "the facade's %s: totalTimeout counts the wait for the programs",
  async (method) => {
    const { createSvc } = await fresh()
    const answer = await createSvc(origin)[method]("/late", { totalTimeout: 500 })
    expect(answer).toMatchObject({ success: false, code: "TIMEOUT" })
  }
)

it.each(methods)(
  "the Effect API's %s: totalTimeout counts the wait for the programs",
  async (method) => {
    const { Effect, Stream, SvcClient } = await fresh()
    const received: Array<unknown> = []
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.flatMap(SvcClient, (client) =>
          Stream.runForEach(
            client[method]("/late", { totalTimeout: 500 }) as StreamT.Stream<unknown, unknown>,
            (item) => Effect.sync(() => received.push(item))
          )
        ).pipe(Effect.provide(SvcClient.layerDefault(origin)))
      )
    )
    // ended before the headers: nothing of the body came
    expect(error).toMatchObject({ _tag: "TimeoutError", total: true })
    expect(received).toEqual([])
  }
)

it.each(methods)(
  "the facade's %s: an onError that aborts the signal is late for a bad option",
  async (method) => {
    const { createSvc } = await fresh()
    const reported: Array<unknown> = []
    const controller = new AbortController()
    const svc = createSvc(origin, {
      onError: (error) => {
        reported.push(error)
        controller.abort()
      }
    })
    const answer = await svc[method]("/late", {
      signal: controller.signal,
      method: "HEAD" as never
    })
    expect(answer).toMatchObject({ success: false, code: "INVALID_REQUEST" })
    expect(reported).toEqual([expect.objectContaining({ _tag: "InvalidRequestError" })])
  }
)
