/**
 * The two Effect lines' public modules are twins (`src/X` and `src/v3/X`): the same names, the same
 * signatures and a doc example wherever the other line has one — except for the renames and the
 * pieces one Effect lacks, each listed below with its reason. Everything else a binding holds is
 * its dialect (`internal/`), which is where the lines differ by design.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..")
const effect4 = join(root, "src")
const effect3 = join(root, "src", "v3")

/** What exists on one line only, on purpose: `module: name` → why. */
const ONE_LINE_ONLY: Readonly<Record<string, string>> = {
  // Effect 4 has no optional HttpApi middleware: guests get a middleware of their own there
  "Auth/HttpApiAuth.ts: Optional": "Effect 4 only (HttpApiAuth.Optional)",
  "Auth/HttpApiAuth.ts: OptionalTag": "Effect 4 only (HttpApiAuth.Optional)",
  "Auth/HttpApiAuth.ts: layerOptional": "Effect 4 only (HttpApiAuth.Optional)"
}

/** What both lines declare, each in its own shape on purpose: `module: name` → why. */
const OTHER_SHAPE: Readonly<Record<string, string>> = {
  "Client/SvcClient.ts: SchemaDecodingTo":
    "Effect 4 names its Schema.Decoder; Effect 3 has none, so the type is spelled out"
}

/** What a module declares: each public name with its shape, and the names that carry an example. */
interface Surface {
  readonly shapes: Map<string, string>
  readonly examples: Set<string>
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

const isStatic = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword)

const hasExample = (node: ts.Node): boolean =>
  ts.getJSDocTags(node).some((tag) => tag.tagName.text === "example")

/** A function's shape: its parameters' names, optional ones marked. */
const parametersOf = (node: ts.Node | undefined): string | undefined => {
  if (node === undefined) return undefined
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) {
    return parametersOf(node.expression)
  }
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node)) {
    const own = node.parameters
      .map((p) => `${p.name.getText()}${p.questionToken || p.initializer ? "?" : ""}`)
      .join(", ")
    // a curried constructor (`Tag<Self>()(id, options)`): the inner call's parameters too
    const inner = ts.isArrowFunction(node) ? parametersOf(node.body) : undefined
    return inner === undefined ? `(${own})` : `(${own}) => ${inner}`
  }
  if (ts.isFunctionTypeNode(node) || ts.isMethodSignature(node) || ts.isMethodDeclaration(node)) {
    return `(${node.parameters.map((p) => `${p.name.getText()}${p.questionToken ? "?" : ""}`).join(", ")})`
  }
  return undefined
}

const membersOf = (members: ts.NodeArray<ts.Node>, keep: (member: ts.Node) => boolean) =>
  members
    .filter(keep)
    .map((member) => {
      const name = (member as { name?: ts.Node }).name?.getText() ?? ""
      const type =
        (member as { type?: ts.Node }).type ?? (member as { initializer?: ts.Node }).initializer
      return `${name}${parametersOf(ts.isMethodDeclaration(member) ? member : type) ?? ""}`
    })
    .filter((text) => text !== "" && !text.startsWith("constructor"))
    .sort()
    .join("; ")

const surfaceOf = (path: string): Surface => {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true)
  const shapes = new Map<string, string>()
  const examples = new Set<string>()
  const add = (name: string, shape: string, node: ts.Node) => {
    shapes.set(name, shape)
    if (hasExample(node)) examples.add(name)
  }
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause
      if (clause === undefined) {
        const specifier = (statement.moduleSpecifier as ts.StringLiteral).text
        shapes.set(`* from ${targetOf(path, specifier)}`, "")
      } else if (ts.isNamespaceExport(clause)) shapes.set(clause.name.text, "namespace")
      else for (const element of clause.elements) shapes.set(element.name.text, "re-export")
      continue
    }
    if (!hasExport(statement)) continue
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const shape = parametersOf(declaration.initializer) ?? "value"
        add(declaration.name.getText(), shape, statement)
      }
    } else if (ts.isClassDeclaration(statement) && statement.name !== undefined) {
      const name = statement.name.text
      add(name, `class { ${membersOf(statement.members, isStatic)} }`, statement)
      for (const member of statement.members) {
        if (isStatic(member) && hasExample(member))
          examples.add(`${name}.${member.name?.getText()}`)
      }
    } else if (ts.isInterfaceDeclaration(statement)) {
      add(
        statement.name.text,
        `interface { ${membersOf(statement.members, () => true)} }`,
        statement
      )
    } else if (ts.isTypeAliasDeclaration(statement)) {
      add(statement.name.text, "type", statement)
    } else if (ts.isFunctionDeclaration(statement) && statement.name !== undefined) {
      add(statement.name.text, parametersOf(statement) ?? "function", statement)
    }
  }
  return { shapes, examples }
}

/** Where an `export *` leads: a module of the line itself, or one both lines share. */
const targetOf = (from: string, specifier: string): string => {
  const target = resolve(dirname(from), specifier)
  const inLine = relative(effect3, target)
  if (!inLine.startsWith("..")) return `the line's ${inLine}`
  const shared = relative(effect4, target)
  return /^(Client|Auth|internal|index)/.test(shared) ? `the line's ${shared}` : `shared ${shared}`
}

/** The public modules of a line: every `.ts` file under these folders but `internal/`. */
const publicModules = (base: string): Array<string> => {
  const found: Array<string> = ["index.ts"]
  for (const folder of ["Client", "Auth"]) {
    for (const entry of readdirSync(join(base, folder), { withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith(".ts")) found.push(`${folder}/${entry.name}`)
    }
  }
  return found.sort()
}

describe("the two lines' public modules are twins", () => {
  it("each public module has its twin", () => {
    expect(publicModules(effect3)).toEqual(publicModules(effect4))
  })

  for (const module of publicModules(effect4)) {
    it(`${module}: the same names, signatures and examples on both lines`, () => {
      const four = surfaceOf(join(effect4, module))
      const three = surfaceOf(join(effect3, module))
      const differences: Array<string> = []
      for (const name of new Set([...four.shapes.keys(), ...three.shapes.keys()])) {
        if (ONE_LINE_ONLY[`${module}: ${name}`] !== undefined) continue
        const a = four.shapes.get(name)
        const b = three.shapes.get(name)
        if (a === undefined) differences.push(`${name}: Effect 3 only`)
        else if (b === undefined) differences.push(`${name}: Effect 4 only`)
        else if (a !== b && OTHER_SHAPE[`${module}: ${name}`] === undefined) {
          differences.push(`${name}: Effect 4 ${a} ≠ Effect 3 ${b}`)
        }
      }
      for (const name of new Set([...four.examples, ...three.examples])) {
        if (ONE_LINE_ONLY[`${module}: ${name}`] !== undefined) continue
        if (!four.examples.has(name)) differences.push(`${name}: an example on Effect 3 only`)
        if (!three.examples.has(name)) differences.push(`${name}: an example on Effect 4 only`)
      }
      expect(differences, relative(root, join(effect4, module))).toEqual([])
    })
  }

  it("every entry of the allow-list names something that exists on one line only", () => {
    for (const entry of Object.keys(ONE_LINE_ONLY)) {
      const [module = "", name = ""] = entry.split(": ")
      const four = surfaceOf(join(effect4, module)).shapes.has(name)
      const three = surfaceOf(join(effect3, module)).shapes.has(name)
      expect(four !== three, entry).toBe(true)
    }
  })

  it("the check sees a difference (a name one line lacks)", () => {
    const four = surfaceOf(join(effect4, "Auth/HttpApiAuth.ts"))
    const three = surfaceOf(join(effect3, "Auth/HttpApiAuth.ts"))
    expect(four.shapes.has("layerOptional")).toBe(true)
    expect(three.shapes.has("layerOptional")).toBe(false)
  })
})
