import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

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
    include: ["test/**/*.test.ts"],
    // the Effect 4 line's tests run with its own toolchain (toolchains/effect4/vitest.config.ts)
    exclude: ["test/v4/**", "**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
