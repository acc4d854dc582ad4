/**
 * Effect 3 only (Effect 4 has no `Effect.daemonChildren`): a request whose fibers are made daemons
 * still ends its exchange when it is interrupted, over every transport of the Effect API.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { effectClients } from "./effectClients.js"
import { testServer } from "./server.js"

describe.each(effectClients)("Effect.daemonChildren (%s)", (_name, clientOf) => {
  it.scoped("Fiber.interrupt on a request under Effect.daemonChildren", () =>
    Effect.gen(function* () {
      const server = yield* testServer(() => ({ hang: true }))
      const client = yield* clientOf(server.origin)
      // what the request forks is a daemon here: its own end must still end the exchange
      const fiber = yield* Effect.fork(Effect.daemonChildren(client.get("/hang")))
      yield* Effect.promise(() => server.waitForRequests(1))
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.waitForAbandoned(1))
      expect(server.requests).toHaveLength(1)
    })
  )
})
