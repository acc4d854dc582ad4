/**
 * Compiles documented code against the sources, as a user's files importing `svc-sdk` would, with a
 * line's effect: the Effect 4 toolchain's types for Effect 4, the root's for Effect 3. Used for the
 * documentation's blocks and the JSDoc examples, together (compile.test.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { exec } from "../support/tarball.js"
import { ROOT } from "./readmeBlocks.js"

/** Each line's `paths`, from a folder two levels under the root: the sources for `svc-sdk`, and that line's effect for the rest. */
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

/**
 * Writes each source as `<name>` into `.tmp/<folder>` (emptied first) and compiles them in one
 * project with the line's paths; answers tsc's report, `""` when everything compiles.
 */
export const typeCheck = async (
  folder: string,
  effect: 3 | 4,
  sources: ReadonlyArray<{ readonly name: string; readonly source: string }>
): Promise<string> => {
  const dir = join(ROOT, ".tmp", folder)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const { name, source } of sources) writeFileSync(join(dir, name), source)
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
      files: sources.map(({ name }) => name).filter((name) => name.endsWith(".ts"))
    })
  )
  try {
    await exec(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", dir], {
      cwd: ROOT
    })
    return ""
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? error)
  }
}
