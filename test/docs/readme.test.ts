/**
 * Every TypeScript block of the documentation (README.md and docs/*.md) compiles against the
 * sources, as a user's file importing `svc-sdk` would, with its line's effect: Effect 4 (the
 * Effect 4 toolchain's types) unless fenced `ts v3`. A block fenced as `ts no-check` is skipped
 * (for fragments that are not programs). `readme-run.test.ts` runs them.
 */
import { expect, it } from "vitest"
import { fileNameOf, readmeBlocks } from "./readmeBlocks.js"
import { typeCheck } from "./typeCheck.js"

it.each([4, 3] as const)(
  "type-checks every TypeScript block of the README and docs/ (Effect %s)",
  async (effect) => {
    const blocks = readmeBlocks().filter(
      (block) => block.kind !== "no-check" && block.effect === effect
    )
    expect(blocks.length).toBeGreaterThan(effect === 4 ? 3 : 1)
    const report = await typeCheck(
      `readme-effect${effect}`,
      effect,
      blocks.map((block) => ({ name: fileNameOf(block), source: `${block.code}\nexport {}\n` }))
    )
    expect(report, "documentation blocks (file names give the document and the block's line)").toBe(
      ""
    )
  },
  240_000
)
