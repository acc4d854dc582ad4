import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import { BaseSequencer } from "vitest/node"
import { longestFirst, RUN_EXCLUDES, SHARED_WORKERS, WORKERS } from "./test/sharedWorkers.js"

export default defineConfig({
  resolve: {
    alias: {
      "#transport": fileURLToPath(new URL("./src/core/transport.node.ts", import.meta.url)),
      "#httpClientAdapter": fileURLToPath(
        new URL("./src/v3/Client/internal/httpClientAdapter.ts", import.meta.url)
      ),
      "#asyncStorage": fileURLToPath(
        new URL("./src/Storage/internal/asyncStorageModule.ts", import.meta.url)
      )
    }
  },
  test: {
    // the Effect 4 line's tests run with its own toolchain (toolchains/effect4/vitest.config.ts)
    exclude: ["test/v4/**", "**/node_modules/**", ...RUN_EXCLUDES],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: WORKERS,
    // as many at the end as at the start: vitest 3 ends idle workers it does not isolate, but they
    // keep running
    minWorkers: WORKERS,
    // the isolated project's files each in a process of their own (forks); the others share worker
    // threads, which load effect and the client once for all of them
    poolOptions: { forks: { isolate: true }, threads: { isolate: false } },
    sequence: { sequencer: longestFirst(BaseSequencer) },
    projects: [
      {
        extends: true,
        test: {
          name: "isolated",
          include: ["test/**/*.test.ts"],
          exclude: [...SHARED_WORKERS],
          pool: "forks",
          // after the shared workers, not beside them: each pool has maxWorkers of its own
          sequence: { groupOrder: 1 }
        }
      },
      {
        extends: true,
        test: {
          name: "shared workers",
          include: [...SHARED_WORKERS],
          pool: "threads",
          sequence: { groupOrder: 0 }
        }
      }
    ]
  }
})
