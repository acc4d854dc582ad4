/**
 * Effect 3 only: Effect 3 counts every fiber of its default runtime in its fiber metrics, and the
 * facade's requests must not add to them (Effect 4 records fiber metrics only when an app provides
 * `Metric.FiberRuntimeMetrics`).
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createSvc } from "../../src/v3/index.js"
import { json, startServer, type TestServer } from "./server.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() => json({ success: true, data: [] }))
})
afterAll(() => server.close())

describe("the facade's telemetry", () => {
  it("its requests start no fibers that Effect's fiber metrics count", async () => {
    const started = () => Effect.runSync(Metric.value(Metric.fiberStarted)).count
    // a fiber of Effect's default runtime counts
    const before = started()
    await Effect.runPromise(Effect.void.pipe(Effect.fork, Effect.flatMap(Fiber.join)))
    expect(started()).toBeGreaterThan(before)
    // reading the metric runs a fiber of its own: count what that adds, then what requests add
    const reading = -started() + started()
    const svc = createSvc(server.origin)
    const counted = started()
    for (let i = 0; i < 5; i++) expect((await svc.get("/x")).success).toBe(true)
    expect(started() - counted).toBe(reading)
  })
})
