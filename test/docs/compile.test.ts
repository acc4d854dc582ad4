/**
 * The documented code compiles against the sources, as a user's files importing `svc-sdk` would,
 * with each line's effect, in one compilation per line:
 * - every TypeScript block of the documentation (README.md and docs/*.md): Effect 4 (the Effect 4
 *   toolchain's types) unless fenced `ts v3`; a block fenced `ts no-check` is skipped (fragments
 *   that are not programs). `readme-run.test.ts` runs them.
 * - every ```` ```ts ```` block under an `@example` in the sources a line's users read — its public
 *   modules and the shared declarations they export (`src/core`, `src/common`); a shared module's
 *   examples on the Effect 3 line import `svc-sdk/v3`. Each must be a whole program, importing what
 *   it uses. `test/package` compiles the public modules' examples again from the packed package's
 *   declarations, with TypeScript 7; the API reference (`npm run docs`) shows them.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { toV3 } from "../types/userPrograms.js"
import { fileNameOf, ROOT, readmeBlocks } from "./readmeBlocks.js"
import { typeCheck } from "./typeCheck.js"

/** The `.ts` files directly in a folder of `src` (not `internal/`). */
const modulesIn = (folder: string): Array<string> =>
  readdirSync(join(ROOT, "src", folder))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => `${folder}/${name}`)

/** What a line's users read the JSDoc of, and whether it is written once for both lines. */
const sourcesOf = (line: 3 | 4): Array<{ readonly file: string; readonly shared: boolean }> => {
  const own = line === 4 ? ["index.ts"] : ["v3/index.ts"]
  own.push(
    ...["Client", "Auth"].flatMap((folder) => modulesIn(line === 4 ? folder : `v3/${folder}`))
  )
  const shared = ["Query", "Storage", "core", "common"].flatMap(modulesIn)
  return [
    ...own.map((file) => ({ file, shared: false })),
    ...shared.map((file) => ({ file, shared: true }))
  ]
}

/** A JSDoc example: where it is and its code, the comment's stars taken off. */
interface Example {
  readonly where: string
  readonly code: string
}

const examplesIn = (file: string, text: string): Array<Example> =>
  [...text.matchAll(/@example\n\s*\* ```ts\n([\s\S]*?)\n\s*\* ```/g)].map((match) => ({
    where: `src/${file}:${text.slice(0, match.index).split("\n").length}`,
    code: match[1]!.replace(/^\s*\* ?/gm, "")
  }))

/**
 * A stand-in for the optional peer's types (React Native apps install it; this repository does
 * not): what the AsyncStorage example needs.
 */
const ASYNC_STORAGE = `declare module "@react-native-async-storage/async-storage" {
  const AsyncStorage: {
    getItem(key: string): Promise<string | null>
    setItem(key: string, value: string): Promise<void>
    removeItem(key: string): Promise<void>
  }
  export default AsyncStorage
}
`

describe.each([4, 3] as const)("the documented code of the Effect %s line", (line) => {
  const examples = sourcesOf(line).flatMap(({ file, shared }) =>
    examplesIn(file, readFileSync(join(ROOT, "src", file), "utf8")).map((example) => ({
      ...example,
      code: line === 3 && shared ? toV3(example.code) : example.code
    }))
  )
  const blocks = readmeBlocks().filter(
    (block) => block.kind !== "no-check" && block.effect === line
  )

  it("JSDoc examples are whole programs: each imports svc-sdk", () => {
    expect(examples.length).toBeGreaterThan(20)
    const fragments = examples.filter(({ code }) => !/from "svc-sdk(\/[\w/]+)?"/.test(code))
    expect(fragments.map(({ where }) => where)).toEqual([])
  })

  it("compiles: every TypeScript block of the README and docs/, and every JSDoc example", async () => {
    expect(blocks.length).toBeGreaterThan(line === 4 ? 3 : 1)
    const report = await typeCheck(`documented-effect${line}`, line, [
      { name: "async-storage.d.ts", source: ASYNC_STORAGE },
      ...blocks.map((block) => ({ name: fileNameOf(block), source: `${block.code}\nexport {}\n` })),
      ...examples.map(({ where, code }) => ({
        name: `src-${where.replace(/^src\//, "").replace(/\W+/g, "-")}.ts`,
        source: `${code}\nexport {}\n`
      }))
    ])
    expect(
      report,
      "documentation blocks (file names give the document and the block's line) and JSDoc examples (src-…: the source file and line)"
    ).toBe("")
  }, 240_000)
})
