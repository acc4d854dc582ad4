/**
 * `npm test`'s summary names every error that fails a run although no test failed (an unhandled
 * rejection, a worker's RPC timing out, a suite's hook that failed, which skips its tests):
 * scripts/vitest-run-errors.mjs records them for it. Here real vitest runs over a test that passes
 * while a promise rejects unhandled, and over a suite whose `beforeAll` throws.
 */
import { execFile } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect, it } from "vitest"
import { root } from "../support/tarball.js"

/** A vitest run of its own over `files` (name → source): its exit code and the errors recorded. */
const runErrors = async (
  name: string,
  files: Record<string, string>
): Promise<{ code: number | null; errors: Array<string> }> => {
  const dir = join(root, ".tmp", name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const [file, source] of Object.entries(files)) writeFileSync(join(dir, file), source)
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
  const { errors } = JSON.parse(readFileSync(errorsFile, "utf8")) as { errors: Array<string> }
  rmSync(dir, { recursive: true, force: true })
  return { code, errors }
}

it("records an unhandled rejection that fails a run whose tests all passed", async () => {
  const run = await runErrors("run-errors", {
    "left.test.ts": `import { expect, it } from "vitest"
     it("passes", async () => {
       Promise.reject(new Error("left behind\\nsecond line"))
       await new Promise((resolve) => setTimeout(resolve, 20))
       expect(1).toBe(1)
     })`
  })
  expect(run).toEqual({ code: 1, errors: ["Error: left behind"] })
}, 60_000)

it("records a suite's failed hook, which fails the run with its tests skipped, naming the suite", async () => {
  const run = await runErrors("run-errors-hook", {
    "hook.test.ts": `import { beforeAll, describe, expect, it } from "vitest"
     describe("a suite", () => {
       beforeAll(() => {
         throw new Error("the page did not build")
       })
       it("never runs", () => expect(1).toBe(1))
     })`
  })
  expect(run).toEqual({
    code: 1,
    errors: ["hook.test.ts > a suite: Error: the page did not build"]
  })
}, 60_000)
