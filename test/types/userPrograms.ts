/**
 * Types as a user's compiler sees them: small user programs (test/types/programs) compiled against
 * the packed package, installed in a scratch app, by each TypeScript the suite names, under each
 * module resolution a user may pick — with `strict`, `exactOptionalPropertyTypes`,
 * `noUncheckedIndexedAccess`, `skipLibCheck: false` and `declaration: true`. One project per
 * mode compiles every program at once. TypeScript 7 checks every declaration file in every mode;
 * TypeScript 5.9 checks svc-sdk's in every mode, and the other packages' (effect's, its own
 * libraries') in one. TypeScript 5.9 compiles a line's projects in one process, which parses each
 * declaration file they read once (compileProject.mjs).
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { root } from "../support/tarball.js"

const PROGRAMS = join(root, "test/types/programs")
const COMPILE_PROJECT = join(root, "test/types/compileProject.mjs")

/**
 * The newest TypeScript (`npm view typescript dist-tags`: 7, the native compiler). The apps install
 * it: as a devDependency of this repository its `tsc` would replace 5.9's in node_modules/.bin,
 * which the build and `npm run typecheck` run.
 */
export const TYPESCRIPT_7 = "typescript@7.0.2"

/** A TypeScript to compile with: this repository's 5.9 and, installed in the app, the newest. */
export interface Compiler {
  readonly name: string
  /**
   * Whether one run compiles all of a line's projects (sharing the declaration files they read)
   * rather than one run each.
   */
  readonly together: boolean
  /** What Node runs, in the app, to compile `projects`. */
  readonly command: (app: string, projects: ReadonlyArray<Project>) => ReadonlyArray<string>
  /** Each project's report from what the run printed: "" when it compiles. */
  readonly reports: (projects: ReadonlyArray<Project>, run: RunOutput) => ReadonlyArray<string>
  /** whether it still has `moduleResolution: node10` (TypeScript 7 removed it) */
  readonly node10: boolean
}

/** A project in the app: a line's programs in one mode, for one compiler. */
export interface Project {
  readonly mode: Mode
  /** its folder, with its `tsconfig.json`; the declarations it emits go to `out/` */
  readonly dir: string
  /** how many program files it has */
  readonly files: number
}

/** What a compiler's run printed, and why it failed if it did (a non-zero exit, a signal). */
interface RunOutput {
  readonly stdout: string
  readonly stderr: string
  readonly failure: string | undefined
}

/** A run's whole output, or why it failed when it printed nothing. */
const printed = (run: RunOutput): string =>
  `${run.stdout}${run.stderr}`.trim() || (run.failure ?? "")

const versionIn = (modules: string): string =>
  JSON.parse(readFileSync(join(modules, "typescript", "package.json"), "utf8")).version

/**
 * The mode in which TypeScript 5.9 checks every declaration file, as `skipLibCheck: false` does:
 * effect's and TypeScript's own do not change with the mode, and checking them is most of a
 * compilation's time (4 s of 6 s). In the other modes it checks the programs and svc-sdk's
 * declarations (compileProject.mjs). TypeScript 7 checks every file in every mode.
 */
const checksAll = (mode: Mode): boolean => mode.name === "nodenext"

export const COMPILERS: ReadonlyArray<Compiler> = [
  {
    name: `TypeScript ${versionIn(join(root, "node_modules"))}`,
    together: true,
    command: (_app, projects) => [
      COMPILE_PROJECT,
      join(root, "node_modules/typescript"),
      ...projects.map(({ dir, mode }) => `${dir}=${checksAll(mode) ? "all" : "own"}`)
    ],
    reports: (projects, run) => {
      let reports: Record<string, string> = {}
      try {
        reports = JSON.parse(run.stdout)
      } catch {
        return projects.map(() => printed(run) || "no report")
      }
      return projects.map(({ dir }) => reports[dir] ?? `no report for ${dir}: ${printed(run)}`)
    },
    node10: true
  },
  {
    name: TYPESCRIPT_7.replace("typescript@", "TypeScript "),
    together: false,
    command: (app, projects) => [
      join(app, "node_modules/typescript/bin/tsc"),
      ...projects.flatMap(({ dir }) => ["-p", join(dir, "tsconfig.json")])
    ],
    reports: (projects, run) => projects.map(() => (run.failure === undefined ? "" : printed(run))),
    node10: false
  }
]

/** A module resolution mode: its compiler options and the extensions its programs take. */
export interface Mode {
  readonly name: string
  readonly options: Record<string, unknown>
  readonly extensions: ReadonlyArray<".ts" | ".mts" | ".cts">
}

export const MODES: ReadonlyArray<Mode> = [
  {
    name: "bundler",
    options: { module: "ESNext", moduleResolution: "Bundler" },
    extensions: [".ts"]
  },
  {
    name: "node16",
    options: { module: "Node16", moduleResolution: "Node16" },
    extensions: [".mts", ".cts"]
  },
  {
    name: "nodenext",
    options: { module: "NodeNext", moduleResolution: "NodeNext" },
    extensions: [".mts", ".cts"]
  },
  {
    name: "node10",
    options: { module: "CommonJS", moduleResolution: "Node10" },
    extensions: [".ts"]
  }
]

/**
 * The modes a line is compiled in with a compiler. node10: the Effect 3 line only (effect 4
 * declares its types through `exports` alone, which node10 does not read), and only by a
 * TypeScript that still has it (7 removed it).
 */
export const modesOf = (line: 3 | 4, compiler: Compiler): ReadonlyArray<Mode> =>
  MODES.filter((mode) => mode.name !== "node10" || (line === 3 && compiler.node10))

const STRICTEST = {
  target: "ES2022",
  lib: ["ES2022", "DOM"],
  types: [],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  declaration: true,
  emitDeclarationOnly: true
}

/** The entry points of the Effect 3 line for the Effect 4 ones the programs import. */
export const toV3 = (source: string): string =>
  source.replace(
    /from "svc-sdk(\/Client|\/Auth)?"/g,
    (_, sub: string | undefined) => `from "svc-sdk/v3${sub ?? ""}"`
  )

/** A user program: its file name and source, importing the line's entry points. */
export interface Program {
  readonly name: string
  readonly source: string
}

/** The programs of a line: the shared ones and its own, through its entry points. */
export const programsOf = (line: 3 | 4): ReadonlyArray<Program> =>
  ["shared", `v${line}`].flatMap((folder) =>
    readdirSync(join(PROGRAMS, folder)).map((name) => {
      const source = readFileSync(join(PROGRAMS, folder, name), "utf8")
      return { name, source: line === 3 ? toV3(source) : source }
    })
  )

/**
 * The JSDoc examples a user of the line reads in the installed package's declarations (its public
 * modules, in dist/esm), as programs: each that imports svc-sdk and only packages the app has
 * (not `@react-native-async-storage/async-storage`). Fragments without imports are left out.
 */
export const examplesOf = (app: string, line: 3 | 4): ReadonlyArray<Program> => {
  const dist = join(app, "node_modules/svc-sdk/dist/esm", line === 3 ? "v3" : "")
  const installed = (specifier: string): boolean =>
    existsSync(
      join(
        app,
        "node_modules",
        specifier
          .split("/")
          .slice(0, specifier.startsWith("@") ? 2 : 1)
          .join("/")
      )
    )
  return ["Client", "Auth", "Query", "Storage"].flatMap((folder) =>
    readdirSync(
      join(
        dist,
        line === 3 && (folder === "Query" || folder === "Storage") ? `../${folder}` : folder
      )
    )
      .filter((name) => name.endsWith(".d.ts"))
      .flatMap((name) => {
        const text = readFileSync(
          join(
            dist,
            line === 3 && (folder === "Query" || folder === "Storage") ? `../${folder}` : folder,
            name
          ),
          "utf8"
        )
        return [...text.matchAll(/@example\n\s*\* ```ts\n([\s\S]*?)\n\s*\* ```/g)].map(
          (match, i) => ({
            name: `example-${folder}-${name.replace(/\.d\.ts$/, "")}-${i + 1}.ts`,
            source: `${match[1]!.replace(/^\s*\* ?/gm, "")}\nexport {}\n`
          })
        )
      })
      .filter(({ source }) => {
        const specifiers = [...source.matchAll(/from "([^"]+)"/g)].map((match) => match[1]!)
        return (
          specifiers.some((specifier) => specifier.startsWith("svc-sdk")) &&
          specifiers.every(installed)
        )
      })
  )
}

/**
 * Whether a program is compiled with this extension. Effect 4 is ES modules only: TypeScript's
 * node16 refuses a CommonJS file's import of it (nodenext allows it, as Node ≥ 22.12 does), so a
 * CommonJS program that imports effect itself is left out there; those importing only svc-sdk stay.
 */
const compiles = (line: 3 | 4, mode: Mode, extension: string, program: Program): boolean =>
  !(
    line === 4 &&
    mode.name === "node16" &&
    extension === ".cts" &&
    /from "effect/.test(program.source)
  )

/** One compilation: a line's programs, in one mode, by one compiler. */
export interface Compilation extends Project {
  readonly compiler: Compiler
  /** the compiler's report: "" when everything compiles */
  readonly report: string
}

/** Writes the project of `mode` for `compiler` into the app. */
const writeProject = (app: string, line: 3 | 4, mode: Mode, compiler: Compiler): Project => {
  const dir = join(app, "types", `${compiler.name.replace(/\W+/g, "-")}-${mode.name}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const files: Array<string> = []
  // the JSDoc examples import the whole of effect: compiled once, by the fast compiler
  const examples = mode.name === "bundler" && !compiler.node10 ? examplesOf(app, line) : []
  for (const program of [...programsOf(line), ...examples]) {
    for (const extension of mode.extensions) {
      if (!compiles(line, mode, extension, program)) continue
      const file = program.name.replace(/\.ts$/, extension)
      writeFileSync(join(dir, file), program.source)
      files.push(file)
    }
  }
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { ...STRICTEST, ...mode.options, outDir: "out" }, files })
  )
  return { mode, dir, files: files.length }
}

/** Compiles `projects` in one run of `compiler`. */
const compile = async (
  app: string,
  compiler: Compiler,
  projects: ReadonlyArray<Project>,
  node: string
): Promise<ReadonlyArray<Compilation>> => {
  const run = await new Promise<RunOutput>((done) =>
    execFile(
      node,
      compiler.command(app, projects),
      { cwd: app, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done({ stdout, stderr, failure: error === null ? undefined : String(error) })
    )
  )
  const reports = compiler.reports(projects, run)
  return projects.map((project, at) => ({ ...project, compiler, report: reports[at]! }))
}

/**
 * Every compilation of a line, two runs at a time (one compiler per core): each compiler in each
 * of its modes, TypeScript 5.9's in one run.
 */
export const compileAll = async (
  app: string,
  line: 3 | 4,
  node: string
): Promise<ReadonlyArray<Compilation>> => {
  const jobs = COMPILERS.flatMap((compiler) => {
    const projects = modesOf(line, compiler).map((mode) => writeProject(app, line, mode, compiler))
    const runs = compiler.together ? [projects] : projects.map((project) => [project])
    return runs.map((run) => () => compile(app, compiler, run, node))
  })
  const results: Array<Compilation> = []
  const worker = async (): Promise<void> => {
    for (let job = jobs.shift(); job !== undefined; job = jobs.shift())
      results.push(...(await job()))
  }
  await Promise.all([worker(), worker()])
  return results
}
