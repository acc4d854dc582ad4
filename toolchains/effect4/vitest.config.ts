/**
 * The Effect 4 line's tests (test/v4), run by the Effect 4 toolchain's vitest (toolchains/effect4)
 * on Node ≥ 22: effect, its Node platform and the test runner resolve from there. A shared test
 * that imports the Effect 3 binding (src/Client) runs against the Effect 4 one (src/v4/Client).
 */
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const root = fileURLToPath(new URL("../../", import.meta.url))
const toolchain = `${root}toolchains/effect4/node_modules/`

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
      { find: "#transport", replacement: `${root}src/core/transport.node.ts` },
      { find: "#onDemand", replacement: `${root}src/Client/internal/onDemand.ts` },
      { find: "#asyncStorage", replacement: `${root}src/Storage/internal/asyncStorageModule.ts` }
    ]
  },
  test: {
    include: ["test/v4/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
