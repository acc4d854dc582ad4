/**
 * `npm test`'s summary names every error that fails a run although no test failed (an unhandled
 * rejection, a worker's RPC timing out): scripts/vitest-run-errors.mjs records them for it. Here a
 * real vitest run over a test that passes while a promise rejects unhandled.
 */
import { execFile } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect, it } from "vitest"
import { root } from "../support/tarball.js"

it("records an unhandled rejection that fails a run whose tests all passed", async () => {
  const dir = join(root, ".tmp", "run-errors")
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    join(dir, "left.test.ts"),
    `import { expect, it } from "vitest"
     it("passes", async () => {
       Promise.reject(new Error("left behind\\nsecond line"))
       await new Promise((resolve) => setTimeout(resolve, 20))
       expect(1).toBe(1)
     })`
  )
  writeFileSync(
    join(dir, "vitest.config.mjs"),
    'export default { test: { include: ["*.test.ts"] } }'
  )
  const errorsFile = join(dir, "errors.json")
  const code = await new Promise<number | null>((resolve) => {
    execFile(
      process.execPath,
      [
        join(root, "node_modules", "vitest", "vitest.mjs"),
        "run",
        "--root",
        dir,
        "--config",
        join(dir, "vitest.config.mjs"),
        "--reporter=dot",
        `--reporter=${join(root, "scripts", "vitest-run-errors.mjs")}`
      ],
      // a run of its own, not a child of this one: none of this worker's VITEST_* variables
      {
        cwd: dir,
        env: {
          ...Object.fromEntries(
            Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST"))
          ),
          NODE_ENV: "test",
          SVC_RUN_ERRORS: errorsFile
        }
      },
      (error) => resolve(error === null ? 0 : (error.code as number | null))
    )
  })
  expect(code).toBe(1)
  expect(JSON.parse(readFileSync(errorsFile, "utf8")).errors).toEqual(["Error: left behind"])
  rmSync(dir, { recursive: true, force: true })
}, 60_000)
