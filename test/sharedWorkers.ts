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
 * stubbed storage) and stops what it starts (servers, redis-server, the demo's processes), so a
 * worker loads effect and the client once for all of them, not once per file, and the demo's
 * suites start with the rest. The others each run in a worker of their own: the browser,
 * packaging, docs and runtime suites, and the one that measures the process's memory.
 */
export const SHARED_WORKERS: ReadonlyArray<string> = [
  "test/core.test.ts",
  "test/core/*.test.ts",
  "test/Query/*.test.ts",
  "test/Storage/*.test.ts",
  "test/Client/!(streams-memory).test.ts",
  "test/v4/Client/*.test.ts",
  "test/Auth/*.test.ts",
  "test/v4/Auth/*.test.ts",
  "test/examples/*.test.ts",
  "test/v4/examples/*.test.ts"
]

/**
 * The files that take longest, longest first: the demo's runs (20 to 30 s), the stores' lifetimes
 * on Redis's clock and the demo server's restarts (about 20 s each), the streams' timeouts (about
 * 10 s). They start before the other files of their group, whose short files then fill the other
 * workers; started last (vitest runs the largest files first when it has no timings, as on a
 * fresh clone), one of them runs alone at the end of the group.
 */
export const LONGEST_FIRST: ReadonlyArray<string> = [
  "test/examples/demo.test.ts",
  "test/v4/examples/demo.test.ts",
  "test/Auth/SessionStore.test.ts",
  "test/examples/server.test.ts",
  "test/v4/examples/server.test.ts",
  "test/Client/streams.test.ts"
]

/** What the sequencer reads of a test file (a vitest `TestSpecification`, in vitest 3 and 5). */
interface TestFile {
  readonly moduleId: string
  readonly project: { readonly config: { readonly sequence: { readonly groupOrder: number } } }
}

/** A vitest sequencer's `sort`, the part {@link longestFirst} extends. */
type Sequencer = new (
  // biome-ignore lint/suspicious/noExplicitAny: vitest's context, passed through as it is
  ...args: Array<any>
) => { sort(files: Array<TestFile>): Promise<Array<TestFile>> }

/**
 * The toolchain's `BaseSequencer` (from `vitest/node`), with {@link LONGEST_FIRST}'s files first in
 * their group and vitest's order otherwise.
 */
export const longestFirst = <S extends Sequencer>(Base: S): S =>
  class extends Base {
    override async sort(files: Array<TestFile>): Promise<Array<TestFile>> {
      const rank = (file: TestFile) => {
        const at = LONGEST_FIRST.findIndex((name) => file.moduleId.endsWith(`/${name}`))
        return at === -1 ? LONGEST_FIRST.length : at
      }
      const sorted = await super.sort(files)
      return sorted
        .map((file, at) => ({ file, at }))
        .sort(
          (a, b) =>
            a.file.project.config.sequence.groupOrder - b.file.project.config.sequence.groupOrder ||
            rank(a.file) - rank(b.file) ||
            a.at - b.at
        )
        .map(({ file }) => file)
    }
  }

/**
 * The files a run leaves out (`SVC_TEST_EXCLUDE`, a JSON array of globs: scripts/test.mjs sets it
 * for the runs on other Node versions). Vitest's `--exclude` does not reach a config's projects.
 */
export const RUN_EXCLUDES: ReadonlyArray<string> = JSON.parse(
  process.env.SVC_TEST_EXCLUDE ?? "[]"
) as Array<string>
