/**
 * The TypeScript blocks of README.md, with what their fence says about them:
 *
 * - ```` ```ts ````          a program: type-checked, and run against the demo server
 * - ```` ```ts server ````   a server of its own: type-checked, started on a free port and called
 * - ```` ```ts no-run ````   type-checked only (a module for an app, e.g. a React hook)
 * - ```` ```ts no-check ```` neither (fragments that are not programs)
 *
 * A block is on the Effect 4 line (the root entries, run on Node 24) unless its fence says `v3`
 * first (```` ```ts v3 server ````): then it is on the Effect 3 line (`svc-sdk/v3`, run on this Node).
 */
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "../..")

export type BlockKind = "program" | "server" | "no-run" | "no-check"

export interface Block {
  /** The line of the opening fence: names the block in failures and file names. */
  readonly line: number
  readonly kind: BlockKind
  /** The Effect line it is written for. */
  readonly effect: 3 | 4
  readonly code: string
}

const KINDS: Record<string, BlockKind> = {
  "": "program",
  server: "server",
  "no-run": "no-run",
  "no-check": "no-check"
}

export const readmeBlocks = (markdown = readFileSync(join(ROOT, "README.md"), "utf8")) => {
  const blocks: Array<Block> = []
  const fence =
    /^```(?:ts|typescript)(?:[ \t]+(v3))?(?:[ \t]+([\w-]+))?[ \t]*$([\s\S]*?)^```[ \t]*$/gm
  for (const match of markdown.matchAll(fence)) {
    const info = match[2] ?? ""
    const kind = KINDS[info]
    const line = markdown.slice(0, match.index).split("\n").length
    if (kind === undefined) throw new Error(`README.md:${line}: unknown fence word "${info}"`)
    blocks.push({ line, kind, effect: match[1] === "v3" ? 3 : 4, code: match[3]! })
  }
  return blocks
}
