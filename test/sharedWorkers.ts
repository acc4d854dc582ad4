import { availableParallelism } from "node:os"

/**
 * Test files mostly wait (on servers, child processes, a browser, Redis), so one worker more than
 * the machine has cores keeps the cores busy; vitest's default, cores − 1, runs one file at a time
 * on a 2-core machine. `SVC_TEST_WORKERS` overrides it.
 */
export const WORKERS = Number(process.env.SVC_TEST_WORKERS) || availableParallelism() + 1

/**
 * The test files that share workers (vitest's `isolate: false`) on both toolchains: each restores
 * what global it changes (a dispatcher, an OpenTelemetry context manager, msw's interception,
 * stubbed storage) and stops what it starts (servers, redis-server), so a worker loads effect and
 * the client once for all of them, not once per file. The rest each run in a worker of their own:
 * the examples, browser, packaging, docs and runtime suites, and the one that measures the
 * process's memory.
 */
export const SHARED_WORKERS: ReadonlyArray<string> = [
  "test/core.test.ts",
  "test/core/*.test.ts",
  "test/Query/*.test.ts",
  "test/Storage/*.test.ts",
  "test/Client/!(streams-memory).test.ts",
  "test/v4/Client/*.test.ts",
  "test/Auth/*.test.ts",
  "test/v4/Auth/*.test.ts"
]

/**
 * The files a run leaves out (`SVC_TEST_EXCLUDE`, a JSON array of globs: scripts/test.mjs sets it
 * for the runs on other Node versions). Vitest's `--exclude` does not reach a config's projects.
 */
export const RUN_EXCLUDES: ReadonlyArray<string> = JSON.parse(
  process.env.SVC_TEST_EXCLUDE ?? "[]"
) as Array<string>
