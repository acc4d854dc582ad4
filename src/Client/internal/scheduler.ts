/**
 * The facade's scheduler. Effect's default scheduler gives every fiber a runner of its own, kept
 * in a `WeakMap`, so that one fiber's tasks never run in another's async context
 * (`AsyncLocalStorage`). The facade runs one short fiber per request, whose runner and map entry
 * cost it more than its tasks: here each task is a microtask of its own, which runs in the async
 * context it was scheduled from, as with the runners.
 */
import * as Scheduler from "effect/Scheduler"

/** Tasks in a row in microtasks before one waits for a timer, as Effect's default scheduler. */
const MAX_MICROTASKS = 2048

let microtasks = 0
let resetting = false

const reset = () => {
  microtasks = 0
  resetting = false
}

/**
 * Each task in a microtask, until {@link MAX_MICROTASKS} have run without the event loop turning:
 * then in a timer, so that fibers that keep yielding never starve I/O.
 */
export const scheduler: Scheduler.Scheduler = {
  scheduleTask: (task) => {
    if (microtasks >= MAX_MICROTASKS) {
      setTimeout(task, 0)
      return
    }
    microtasks++
    if (!resetting) {
      resetting = true
      setTimeout(reset, 0)
    }
    Promise.resolve().then(task)
  },
  shouldYield: (fiber) => Scheduler.defaultScheduler.shouldYield(fiber)
}
