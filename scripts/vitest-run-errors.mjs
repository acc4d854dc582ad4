// A vitest reporter for `npm test` (scripts/test.mjs): writes the run's errors that are not a test's
// own failure (unhandled errors and rejections, a worker that timed out or died, a file that failed
// to load, a suite's hook that failed) and how the run ended to the file named by SVC_RUN_ERRORS, so
// the closing summary can name every one of them.
import { writeFileSync } from "node:fs"
import { relative } from "node:path"

const lineOf = (error) => {
  const name = typeof error?.name === "string" ? error.name : "Error"
  const message = typeof error?.message === "string" ? error.message : String(error)
  return `${name}: ${message.split("\n")[0]}`
}

/** The errors of test files and suites themselves (loading, hooks), each naming where it was. */
const suiteErrors = (modules) => {
  const lines = []
  for (const module of modules) {
    const file = relative(process.cwd(), module.moduleId)
    for (const error of module.errors()) lines.push(`${file}: ${lineOf(error)}`)
    for (const suite of module.children.allSuites()) {
      for (const error of suite.errors())
        lines.push(`${file} > ${suite.fullName}: ${lineOf(error)}`)
    }
  }
  return lines
}

export default class RunErrors {
  onTestRunEnd(modules, unhandledErrors, reason) {
    const file = process.env.SVC_RUN_ERRORS
    if (!file) return
    const errors = [...suiteErrors(modules), ...unhandledErrors.map(lineOf)]
    writeFileSync(file, JSON.stringify({ reason, errors }))
  }
}
