// Compiles TypeScript projects as `tsc -p <dir>` does, through the compiler's API, one after the
// other in one process, and prints each one's report as JSON, `{ "<dir>": "<report>" }` ("" when it
// compiles): `node compileProject.mjs <typescript package> <dir>=<scope> [<dir>=<scope> …]`.
// Scope `all` checks every file, declaration files under node_modules included, as tsc does with
// `skipLibCheck: false`. Scope `own` checks the project's files and svc-sdk's declarations, and
// reads the other packages' declarations (effect's, TypeScript's libraries) without checking them:
// the same report unless those have errors of their own, which scope `all` finds in another mode.
//
// The projects share the declaration files they all read: each is parsed and bound once, by the
// first project that reads it, as TypeScript's language service shares them between projects. A
// declaration file parses and binds the same under every module mode (no mode forces it to be a
// module), so a file is shared between projects that read it with the same target and the same
// format (ESM or CommonJS); which module a mode resolves an import to is the program's, not the
// file's. Each project still has a checker of its own, which checks it from scratch.
import { createRequire } from "node:module"
import { join } from "node:path"

const [typescript, ...projects] = process.argv.slice(2)
const ts = createRequire(import.meta.url)(typescript)

/** The declaration files read so far, by name, target, format and JSDoc parsing. */
const declarations = new Map()
const isDeclaration = (fileName) => /\.d\.[cm]?ts$/.test(fileName)

/** One project's report: "" when it compiles. */
const compile = (dir, scope) => {
  if (scope !== "all" && scope !== "own") throw new Error(`scope must be all or own, got ${scope}`)
  const config = ts.getParsedCommandLineOfConfigFile(join(dir, "tsconfig.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
    }
  })
  const host = ts.createCompilerHost(config.options)
  const read = host.getSourceFile
  host.getSourceFile = (fileName, settings, ...rest) => {
    if (!isDeclaration(fileName)) return read.call(host, fileName, settings, ...rest)
    const { languageVersion, impliedNodeFormat, jsDocParsingMode } =
      typeof settings === "object" ? settings : { languageVersion: settings }
    const key = `${fileName}\0${languageVersion}\0${impliedNodeFormat}\0${jsDocParsingMode}`
    let file = declarations.get(key)
    if (file === undefined) {
      file = read.call(host, fileName, settings, ...rest)
      if (file !== undefined) declarations.set(key, file)
    }
    return file
  }
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    host,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(config)
  })
  const checked = (file) =>
    scope === "all" ||
    !file.fileName.includes("/node_modules/") ||
    file.fileName.includes("/node_modules/svc-sdk/")
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program
      .getSourceFiles()
      .filter(checked)
      .flatMap((file) => program.getSemanticDiagnostics(file)),
    // emitting the whole program checks every file first: scope `own` emits its files one by one
    ...(scope === "all"
      ? program.emit().diagnostics
      : program
          .getSourceFiles()
          .filter((file) => !file.isDeclarationFile && checked(file))
          .flatMap((file) => program.emit(file).diagnostics))
  ]
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => dir,
    getNewLine: () => "\n"
  })
}

const reports = {}
for (const project of projects) {
  const at = project.lastIndexOf("=")
  const dir = project.slice(0, at)
  reports[dir] = compile(dir, project.slice(at + 1))
}
process.stdout.write(JSON.stringify(reports))
