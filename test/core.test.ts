/**
 * The shared core (`src/core`) is plain TypeScript: it imports nothing from `effect` or
 * `@effect/*`, so that every Effect line can use it as it is.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const CORE = new URL("../src/core/", import.meta.url).pathname
const files = readdirSync(CORE).filter((name) => name.endsWith(".ts"))

describe("src/core", () => {
  it("holds the shared modules", () => {
    expect(files).toEqual(expect.arrayContaining(["url.ts", "transport.ts", "response.ts"]))
  })

  it.each(files)("%s imports nothing from effect", (name) => {
    // the code, not its JSDoc examples (which import effect as a user's program does)
    const source = readFileSync(join(CORE, name), "utf8").replace(/\/\*[\s\S]*?\*\//g, "")
    const imports = [...source.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1])
    expect(imports.filter((path) => /^(effect|@effect\/)/.test(path ?? ""))).toEqual([])
  })
})
