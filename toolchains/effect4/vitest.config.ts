/**
 * The Effect 4 line's tests (test/v4, and the shared ones below), run by the Effect 4 toolchain's
 * vitest (toolchains/effect4) on Node ≥ 22: effect, its Node platform and the test runner resolve
 * from there.
 */
import { globSync } from "node:fs"
import { matchesGlob } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import { BaseSequencer } from "vitest/node"
import { longestFirst, RUN_EXCLUDES, SHARED_WORKERS, WORKERS } from "../../test/sharedWorkers.js"

const root = fileURLToPath(new URL("../../", import.meta.url))
const toolchain = `${root}toolchains/effect4/node_modules/`

/**
 * Tests written for either line: they import the Effect 3 binding's paths (src/v3/…), which the
 * alias below turns into the Effect 4 binding's, and only what both Effects spell the same.
 */
const shared = [
  "test/core.test.ts",
  "test/Client/{abort,body,context,dispatcher,effect,facade,fetchFirst,fetchWithoutStreams,headers,httpbin,hung,interceptors,interrupt,invalid,msw,msw2,progress,refresh,response,schema,session,streams,streams-memory,unreadable,url}.test.ts",
  "test/Query/{Operators,QueryBuilder,RoundTrip}.test.ts",
  "test/Storage/*.test.ts",
  "test/examples/{steps,streaming}.test.ts",
  "test/browser/sessionCookie.test.ts",
  "test/chunks/*.test.ts",
  "test/Auth/{compose,crossSite,guards,http,httpApi,LoginThrottle,missingValidator,property,prototype,redaction,SessionStore,sessionCookie,sessionLifecycle,sources,spanUserId,timeout,validators,webHandler}.test.ts"
]

/** This line's test files, those that share workers (test/sharedWorkers.ts) and the rest. */
const files = globSync(["test/v4/**/*.test.ts", ...shared], { cwd: root })
const sharesWorkers = (file: string) => SHARED_WORKERS.some((glob) => matchesGlob(file, glob))
const sharing = files.filter(sharesWorkers)
const isolated = files.filter((file) => !sharesWorkers(file))

export default defineConfig({
  resolve: {
    alias: [
      { find: /^effect$/, replacement: `${toolchain}effect/dist/index.js` },
      {
        find: /^effect\/(http|http-api|persistence|testing)$/,
        replacement: `${toolchain}effect/dist/$1/index.js`
      },
      { find: /^effect\/(.*)$/, replacement: `${toolchain}effect/dist/$1.js` },
      {
        find: /^@effect\/platform-node\/(.*)$/,
        replacement: `${toolchain}@effect/platform-node/dist/$1.js`
      },
      { find: /^@effect\/vitest$/, replacement: `${toolchain}@effect/vitest/dist/index.js` },
      {
        find: /^@effect\/opentelemetry\/(.*)$/,
        replacement: `${toolchain}@effect/opentelemetry/dist/$1.js`
      },
      // one copy of the OpenTelemetry API and SDK: @effect/opentelemetry 4's (its context keys
      // are per copy, so spans made by another copy would lose their parents)
      {
        find: /^@opentelemetry\/(api|resources|sdk-metrics|sdk-trace-base)$/,
        replacement: `${toolchain}@opentelemetry/$1`
      },
      // the ioredis an Effect 4 app installs (the Effect 3 platform's peers hold the root's to 5)
      { find: /^ioredis$/, replacement: `${toolchain}ioredis/built/index.js` },
      { find: /^(.*)\/src\/v3\/(Client|index|Auth)(.*)$/, replacement: `${root}src/$2$3` },
      // the shared tests' per-line pieces (test/Auth/lineKit.ts, httpApiLine.ts): Effect 4's
      {
        find: /^(?:\.\.\/Auth\/|\.\/)(lineKit|httpApiLine)\.js$/,
        replacement: `${root}test/v4/Auth/$1.ts`
      },
      { find: "#transport", replacement: `${root}src/core/transport.node.ts` },
      { find: "#onDemand", replacement: `${root}src/Client/internal/onDemand.ts` },
      { find: "#asyncStorage", replacement: `${root}src/Storage/internal/asyncStorageModule.ts` }
    ]
  },
  test: {
    exclude: ["**/node_modules/**", ...RUN_EXCLUDES],
    maxWorkers: WORKERS,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { sequencer: longestFirst(BaseSequencer) },
    projects: [
      // one after the other, each with maxWorkers: together they would run twice as many
      {
        extends: true,
        test: { name: "isolated", include: isolated, sequence: { groupOrder: 1 } }
      },
      // a worker loads effect and the client once for all of these, not once per file
      {
        extends: true,
        test: {
          name: "shared workers",
          include: sharing,
          isolate: false,
          sequence: { groupOrder: 0 }
        }
      }
    ]
  }
})
