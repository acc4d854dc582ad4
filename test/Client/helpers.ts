/**
 * Test helpers on Effect 3: wait for the client to reach a TestClock sleep.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { flush } from "./transports.js"

/** The pending TestClock deadlines once there are at least `count` (real I/O runs meanwhile). */
export const awaitSleeps = (count = 1): Effect.Effect<ReadonlyArray<number>> =>
  Effect.gen(function* () {
    for (;;) {
      const sleeps = yield* TestClock.sleeps()
      if (Chunk.size(sleeps) >= count) return Chunk.toReadonlyArray(sleeps)
      yield* flush
    }
  })
