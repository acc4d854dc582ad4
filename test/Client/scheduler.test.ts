import { describe, expect, it } from "vitest"
import { scheduler } from "../../src/Client/internal/scheduler.js"

describe("the facade's scheduler", () => {
  it("runs tasks in the order scheduled", async () => {
    const ran: Array<number> = []
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 5; i++) scheduler.scheduleTask(() => ran.push(i), 0)
      scheduler.scheduleTask(resolve, 0)
    })
    expect(ran).toEqual([0, 1, 2, 3, 4])
  })

  it("lets the event loop turn while a task keeps scheduling the next (a fiber that keeps yielding)", async () => {
    let timerFiredAt: number | undefined
    let count = 0
    setTimeout(() => {
      timerFiredAt = count
    }, 0)
    await new Promise<void>((resolve) => {
      const step = () => {
        count++
        if (count === 20_000) resolve()
        else scheduler.scheduleTask(step, 0)
      }
      scheduler.scheduleTask(step, 0)
    })
    expect(timerFiredAt).toBeDefined()
    expect(timerFiredAt!).toBeLessThan(20_000)
  })
})
