/**
 * No object literal in `src` has a getter or a setter. V8 gives each object made by such a literal
 * whose accessor is a fresh closure (a getter over a call's state) a hidden class of its own, made
 * in the old generation: it keeps the closure, and all that the closure reaches (a facade call's
 * fiber, request and response), alive until a full collection, so that young-generation
 * collections copy and promote every call. An accessor belongs on a class, but for the few
 * objects handed to the application whose own properties are part of what it sees (`KEPT`).
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const SRC = new URL("../src/", import.meta.url).pathname

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : []
  )

/**
 * The literal that keeps its getter: `sse`'s `EventStream`, handed to the application (one per
 * call), whose own properties (the getter's included) are what a spread, a `Proxy` (Vue's
 * `reactive`) or `JSON.stringify` of it see, and whose `lastEventId` is the parser's at each read.
 * A class's prototype getter would not be copied by a spread, and a private field would not be read
 * through a proxy.
 */
const KEPT = ["common/streams.ts lastEventId"]

/** `file name` of each getter or setter written in an object literal. */
const literalAccessors = (file: string, text: string): Array<string> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (
      (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) &&
      ts.isObjectLiteralExpression(node.parent)
    ) {
      found.push(`${relative(SRC, file)} ${node.name.getText(source)}`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

describe("src", () => {
  it("finds an accessor in an object literal (the check itself)", () => {
    const text = "const make = (x: number) => ({ get x() { return x }, set y(v: number) {} })"
    expect(literalAccessors(join(SRC, "probe.ts"), text)).toEqual(["probe.ts x", "probe.ts y"])
    expect(literalAccessors(join(SRC, "probe.ts"), "class A { get x() { return 1 } }")).toEqual([])
  })

  it("has no getter or setter in an object literal, but for the application's sse objects", () => {
    const files = sources(SRC)
    expect(files.length).toBeGreaterThan(50)
    expect(files.flatMap((file) => literalAccessors(file, readFileSync(file, "utf8")))).toEqual(
      KEPT
    )
  })
})
