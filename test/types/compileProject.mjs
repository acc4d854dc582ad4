// Compiles a TypeScript project as `tsc -p <dir>` does, through the compiler's API, and prints its
// report (exit 1 when it has one): `node compileProject.mjs <typescript package> <dir> <scope>`.
// Scope `all` checks every file, declaration files under node_modules included, as tsc does with
// `skipLibCheck: false`. Scope `own` checks the project's files and svc-sdk's declarations, and
// reads the other packages' declarations (effect's, TypeScript's libraries) without checking them:
// the same report unless those have errors of their own, which scope `all` finds in another mode.
import { createRequire } from "node:module"
import { join } from "node:path"

const [typescript, dir, scope] = process.argv.slice(2)
if (scope !== "all" && scope !== "own") throw new Error(`scope must be all or own, got ${scope}`)
const ts = createRequire(import.meta.url)(typescript)

const config = ts.getParsedCommandLineOfConfigFile(join(dir, "tsconfig.json"), undefined, {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
  }
})
const program = ts.createProgram({
  rootNames: config.fileNames,
  options: config.options,
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
if (diagnostics.length > 0) {
  process.stdout.write(
    ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => dir,
      getNewLine: () => "\n"
    })
  )
  process.exitCode = 1
}
