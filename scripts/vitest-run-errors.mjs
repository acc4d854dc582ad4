// A vitest reporter for `npm test` (scripts/test.mjs): writes the run's errors that are not a test's
// own failure (unhandled errors and rejections, a worker that timed out or died) and how the run
// ended to the file named by SVC_RUN_ERRORS, so the closing summary can name every one of them.
import { writeFileSync } from "node:fs"

const lineOf = (error) => {
  const name = typeof error?.name === "string" ? error.name : "Error"
  const message = typeof error?.message === "string" ? error.message : String(error)
  return `${name}: ${message.split("\n")[0]}`
}

export default class RunErrors {
  onTestRunEnd(_modules, unhandledErrors, reason) {
    const file = process.env.SVC_RUN_ERRORS
    if (!file) return
    writeFileSync(file, JSON.stringify({ reason, errors: unhandledErrors.map(lineOf) }))
  }
}
