import { getEventListeners } from "node:events"
import { describe, expect, it } from "vitest"
import { whenAborted } from "../../src/core/abort.js"

describe("whenAborted", () => {
  it("calls every waiting callback once, through one listener on the signal", () => {
    const controller = new AbortController()
    const calls: Array<string> = []
    const stops = ["a", "b", "c"].map((name) =>
      whenAborted(controller.signal, () => calls.push(name))
    )
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1)
    stops[1]?.()
    controller.abort()
    controller.abort()
    expect(calls).toEqual(["a", "c"])
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
    // stopping after the abort changes nothing
    stops[0]?.()
    expect(calls).toEqual(["a", "c"])
  })

  it("removes its listener when the last wait stops, and listens again for the next", () => {
    const controller = new AbortController()
    const calls: Array<string> = []
    const first = whenAborted(controller.signal, () => calls.push("first"))
    const second = whenAborted(controller.signal, () => calls.push("second"))
    first()
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1)
    second()
    second()
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0)
    whenAborted(controller.signal, () => calls.push("third"))
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1)
    controller.abort()
    expect(calls).toEqual(["third"])
  })

  it("skips a wait another callback stopped during the abort", () => {
    const controller = new AbortController()
    const calls: Array<string> = []
    let stopLater: () => void = () => undefined
    whenAborted(controller.signal, () => {
      calls.push("first")
      stopLater()
    })
    stopLater = whenAborted(controller.signal, () => calls.push("second"))
    controller.abort()
    expect(calls).toEqual(["first"])
  })

  it("calls back at once on a signal that has aborted already", () => {
    const calls: Array<string> = []
    const stop = whenAborted(AbortSignal.abort(), () => calls.push("called"))
    expect(calls).toEqual(["called"])
    stop()
  })

  it("leaves no listener on a signal made by hand that ignores once", () => {
    // an EventTarget-like signal from a polyfill: every listener kept until removed
    const listeners: Array<() => void> = []
    const signal = {
      aborted: false,
      addEventListener: (_: string, listener: () => void) => listeners.push(listener),
      removeEventListener: (_: string, listener: () => void) => {
        const at = listeners.indexOf(listener)
        if (at >= 0) listeners.splice(at, 1)
      }
    } as unknown as AbortSignal
    const calls: Array<string> = []
    const stop = whenAborted(signal, () => calls.push("called"))
    expect(listeners).toHaveLength(1)
    ;(signal as { aborted: boolean }).aborted = true
    for (const listener of [...listeners]) listener()
    expect(calls).toEqual(["called"])
    stop()
    expect(listeners).toHaveLength(0)
  })
})
