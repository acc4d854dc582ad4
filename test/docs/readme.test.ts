/**
 * Every TypeScript block of the documentation (README.md and docs/*.md) compiles against the
 * sources, as a user's file importing `svc-sdk` would, with its line's effect: Effect 4 (the
 * Effect 4 toolchain's types) unless fenced `ts v3`. A block fenced as `ts no-check` is skipped (for fragments that are not programs).
 * `readme-run.test.ts` runs them.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect, it } from "vitest"
import { exec } from "../support/tarball.js"
import { fileNameOf, readmeBlocks, ROOT as root } from "./readmeBlocks.js"

/** Each line's `paths`: the sources for `svc-sdk`, and that line's effect for the rest. */
const E4 = "../../toolchains/effect4/node_modules"
const pathsOf = {
  4: {
    "svc-sdk": ["../../src/index.ts"],
    "svc-sdk/*": ["../../src/*/index.ts"],
    effect: [`${E4}/effect/dist/index.d.ts`],
    "effect/http": [`${E4}/effect/dist/http/index.d.ts`],
    "effect/http-api": [`${E4}/effect/dist/http-api/index.d.ts`],
    "effect/persistence": [`${E4}/effect/dist/persistence/index.d.ts`],
    "effect/*": [`${E4}/effect/dist/*.d.ts`],
    "@effect/platform-node": [`${E4}/@effect/platform-node/dist/index.d.ts`],
    "@effect/platform-node/*": [`${E4}/@effect/platform-node/dist/*.d.ts`],
    "@effect/opentelemetry/*": [`${E4}/@effect/opentelemetry/dist/*.d.ts`],
    "@opentelemetry/*": [`${E4}/@opentelemetry/*`],
    "#transport": ["../../src/core/transport.node.ts"],
    "#onDemand": ["../../src/Client/internal/onDemand.ts"],
    "#asyncStorage": ["../../src/Storage/internal/asyncStorageModule.ts"]
  },
  3: {
    "svc-sdk/v3": ["../../src/v3/index.ts"],
    "svc-sdk/v3/*": ["../../src/v3/*/index.ts"],
    "svc-sdk/*": ["../../src/*/index.ts"],
    "#transport": ["../../src/core/transport.node.ts"],
    "#httpClientAdapter": ["../../src/v3/Client/internal/httpClientAdapter.ts"],
    "#asyncStorage": ["../../src/Storage/internal/asyncStorageModule.ts"]
  }
} as const

it.each([4, 3] as const)(
  "type-checks every TypeScript block of the README and docs/ (Effect %s)",
  async (effect) => {
    const blocks = readmeBlocks().filter(
      (block) => block.kind !== "no-check" && block.effect === effect
    )
    expect(blocks.length).toBeGreaterThan(effect === 4 ? 3 : 1)
    const dir = join(root, `.tmp/readme-effect${effect}`)
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { recursive: true })
    const files = blocks.map((block) => {
      const file = fileNameOf(block)
      writeFileSync(join(dir, file), `${block.code}\nexport {}\n`)
      return file
    })
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: "../../tsconfig.base.json",
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: false,
          noUnusedParameters: false,
          paths: pathsOf[effect]
        },
        files
      })
    )
    let output = ""
    try {
      await exec(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], {
        cwd: root
      })
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error)
    }
    expect(output, "documentation blocks (file names give the document and the block's line)").toBe(
      ""
    )
  },
  120_000
)
