/**
 * The TypeScript blocks of the documentation — README.md and the guides in docs/ — with what their
 * fence says about them:
 *
 * - ```` ```ts ````          a program: type-checked, and run against the demo server
 * - ```` ```ts server ````   a server of its own: type-checked, started on a free port and called
 * - ```` ```ts no-run ````   type-checked only (a module for an app, e.g. a React hook)
 * - ```` ```ts no-check ```` neither (fragments that are not programs)
 *
 * A block is on the Effect 4 line (the root entries, run on Node 24) unless its fence says `v3`
 * first (```` ```ts v3 server ````): then it is on the Effect 3 line (`svc-sdk/v3`, run on this Node).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

export const ROOT = resolve(import.meta.dirname, "../..")

/** The documentation's Markdown files, relative to the root: README.md, then docs/*.md by name. */
export const documents = (): ReadonlyArray<string> => [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`)
]

/** The text of a document, by its path relative to the root. */
export const documentText = (file: string): string => readFileSync(join(ROOT, file), "utf8")

export type BlockKind = "program" | "server" | "no-run" | "no-check"

export interface Block {
  /** The document it is in, relative to the root (`README.md`, `docs/client.md`). */
  readonly file: string
  /** The line of the opening fence: names the block in failures and file names. */
  readonly line: number
  readonly kind: BlockKind
  /** The Effect line it is written for. */
  readonly effect: 3 | 4
  readonly code: string
}

/** Where a block is, for test names and failures: `docs/client.md:130`. */
export const whereOf = (block: Block): string => `${block.file}:${block.line}`

/** A file name for the block's code, unique across the documents: `docs-client-130.ts`. */
export const fileNameOf = (block: Block): string =>
  `${block.file.replace(/\.md$/, "").replace(/\W+/g, "-")}-${block.line}.ts`

const KINDS: Record<string, BlockKind> = {
  "": "program",
  server: "server",
  "no-run": "no-run",
  "no-check": "no-check"
}

/** The TypeScript blocks of one document's Markdown. */
export const blocksOf = (file: string, markdown = documentText(file)): Array<Block> => {
  const blocks: Array<Block> = []
  const fence =
    /^```(?:ts|typescript)(?:[ \t]+(v3))?(?:[ \t]+([\w-]+))?[ \t]*$([\s\S]*?)^```[ \t]*$/gm
  for (const match of markdown.matchAll(fence)) {
    const info = match[2] ?? ""
    const kind = KINDS[info]
    const line = markdown.slice(0, match.index).split("\n").length
    if (kind === undefined) throw new Error(`${file}:${line}: unknown fence word "${info}"`)
    blocks.push({ file, line, kind, effect: match[1] === "v3" ? 3 : 4, code: match[3]! })
  }
  return blocks
}

/** The TypeScript blocks of every document, README.md first. */
export const readmeBlocks = (): Array<Block> => documents().flatMap((file) => blocksOf(file))
