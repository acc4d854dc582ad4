import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

export default defineConfig({
  resolve: {
    alias: {
      "#transport": fileURLToPath(new URL("./src/core/transport.node.ts", import.meta.url)),
      "#httpClientAdapter": fileURLToPath(
        new URL("./src/Client/internal/httpClientAdapter.ts", import.meta.url)
      ),
      "#asyncStorage": fileURLToPath(
        new URL("./src/Storage/internal/asyncStorageModule.ts", import.meta.url)
      )
    }
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
