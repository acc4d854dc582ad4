// `npm test`: the build, then the whole suite on this Node, then again on Node 22, 24 and 26 (see
// node-versions.mjs), each a separate vitest run whose failures name its version. The browser,
// runtime, packaging, docs and size suites run on the first version only: they drive Chromium, Bun,
// Deno, workerd (runtimes.mjs), npm, the README's examples and esbuild, not Node's own APIs. So do
// the Effect 3 line's demo suites (test/examples): on Node ≥ 22.19 `npm run demo` runs the Effect 4
// line, whose demo suites run there (test/v4/examples); the library runs its suites on each Node.
// Then the Effect 4 line's tests (test/v4) on Node 22, 24 and 26, with the Effect 4 toolchain's
// vitest (effect4-toolchain.mjs): Effect 4 needs Node ≥ 22.19. Its demo suites run on its oldest
// and newest Node (22 and 26: the demo server is a Node HTTP server, whose writes Node 26 times
// differently), its browser suite on Node 22 only.
//
// Time, on two cores: the build uses the CPU while the binaries the runs need come from the
// registry, so they are fetched beside it. The first run uses both cores to its end; the runs on
// the other Nodes use about two thirds of them, so two run side by side. The output of a run that
// is not the oldest still going is held and printed once that one ends.
import { spawn } from "node:child_process"
import { readFileSync, rmSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { EFFECT4_TOOLCHAIN } from "./effect4-toolchain.mjs"
import { nodeBinary, OTHER_VERSIONS, supported } from "./node-versions.mjs"
import { RUNTIMES, runtimeBinary } from "./runtimes.mjs"

const root = resolve(import.meta.dirname, "..")
const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const ONE_VERSION_ONLY = [
  "test/browser/**",
  "test/docs/**",
  "test/size/**",
  "test/runtimes/**",
  "test/package/**",
  "test/toolchain/**",
  "test/examples/**"
]
/** The Effect 4 line's demo suites (`npm run demo`): on its oldest and newest Node only. */
const EFFECT4_DEMO = ["test/v4/examples/**"]
/** The Effect 4 line's cookie suite drives Chromium: on its first Node only. */
const EFFECT4_BROWSER = ["test/browser/**"]
/** `npm test -- test/docs` runs only the test files matching these filters (vitest's own). */
const filters = process.argv.slice(2)

/** Runs a command to its end; resolves its exit code (1 when a signal ended it). */
const exec = (command, args, options) =>
  new Promise((done) => {
    const child = spawn(command, args, { cwd: root, ...options })
    child.on("error", (error) => {
      console.error(`${command}: ${error.message}`)
      done(1)
    })
    // after its output, all of it read
    child.on("close", (code) => done(code ?? 1))
    options.started?.(child)
  })

// the build, and beside it each fetch (they print what they fetch; their stdout is the paths)
const fetches = supported
  ? ["node-versions.mjs", "runtimes.mjs"].map((script) =>
      exec(process.execPath, [join(root, "scripts", script)], {
        stdio: ["ignore", "ignore", "inherit"]
      })
    )
  : []
const built = await exec("npm", ["run", "build"], { stdio: "inherit" })
const fetched = await Promise.all(fetches)
if (built !== 0) {
  console.error(`\nnpm run build exited with ${built}: no tests run`)
  process.exit(built)
}
if (fetched.some((code) => code !== 0)) {
  console.error("\na fetch failed (said above): no tests run")
  process.exit(1)
}

const runs = [{ line: "", version: process.versions.node, node: process.execPath, exclude: [] }]
if (supported) {
  // already there: these return their paths
  for (const runtime of Object.keys(RUNTIMES)) runtimeBinary(runtime)
  for (const [at, version] of OTHER_VERSIONS.entries()) {
    runs.push({ line: "", version, node: nodeBinary(version), exclude: ONE_VERSION_ONLY })
    const exclude = [
      ...(at === 0 || at === OTHER_VERSIONS.length - 1 ? [] : EFFECT4_DEMO),
      ...(at === 0 ? [] : EFFECT4_BROWSER)
    ]
    runs.push({ line: "Effect 4, ", version, node: nodeBinary(version), exclude })
  }
} else {
  console.warn(
    `Node ${OTHER_VERSIONS.join(", ")} skipped: no build for ${process.platform}/${process.arch}`
  )
}

/** What each run printed and whether it ended, in the order of `runs`. */
const outputs = runs.map(() => ({ held: [], ended: false }))
/** The oldest run still going: its output is printed as it comes, the others' held. */
let printing = 0
const write = (index, chunk) => {
  if (index === printing) process.stdout.write(chunk)
  else outputs[index].held.push(chunk)
}
const ended = (index) => {
  outputs[index].ended = true
  while (outputs[printing]?.ended) {
    printing += 1
    const next = outputs[printing]
    if (next === undefined) break
    for (const chunk of next.held) process.stdout.write(chunk)
    next.held = []
  }
}

/** Runs `runs[index]` to its end; resolves what the summary says of it. */
const pass = async (index) => {
  const run = runs[index]
  write(
    index,
    `\n━━━ ${run.line}Node ${run.version} ━━━${run.exclude.length > 0 ? ` (without ${run.exclude.join(", ")})` : ""}\n\n`
  )
  const report = join(
    root,
    ".cache",
    `vitest-${run.line === "" ? "" : "effect4-"}node-${run.version}.json`
  )
  const errorsFile = report.replace(/\.json$/, ".errors.json")
  rmSync(report, { force: true })
  rmSync(errorsFile, { force: true })
  const args =
    run.line === ""
      ? [vitest, "run"]
      : [
          join(EFFECT4_TOOLCHAIN, "node_modules", "vitest", "vitest.mjs"),
          "run",
          "--config",
          join(EFFECT4_TOOLCHAIN, "vitest.config.ts"),
          "--root",
          root,
          // a filter for the other line's files leaves this line nothing to run
          "--passWithNoTests"
        ]
  args.push(
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    `--reporter=${join(root, "scripts", "vitest-run-errors.mjs")}`
  )
  // a filter for the suites run on the first version only leaves the others nothing to run
  if (run.line === "" && run.exclude.length > 0 && filters.length > 0)
    args.push("--passWithNoTests")
  args.push(...filters)
  // the first run has the terminal to itself; the others' output goes through `write`
  const alone = index === 0
  const code = await exec(run.node, args, {
    stdio: alone ? "inherit" : ["ignore", "pipe", "pipe"],
    // child processes the tests start (npm run demo, tsx) use the same Node
    env: {
      ...process.env,
      PATH: `${dirname(run.node)}:${process.env.PATH}`,
      SVC_RUN_ERRORS: errorsFile,
      // read by the vitest configs: `--exclude` does not reach their projects
      SVC_TEST_EXCLUDE: JSON.stringify(run.exclude),
      ...(!alone && process.stdout.isTTY ? { FORCE_COLOR: "1" } : {})
    },
    started: (child) => {
      child.stdout?.on("data", (chunk) => write(index, chunk))
      child.stderr?.on("data", (chunk) => write(index, chunk))
    }
  })
  let passed = 0
  let failed = 0
  let skipped = 0
  /** The failed tests, named again in the summary: a log cut to its end still says which. */
  let failures = []
  try {
    const json = JSON.parse(readFileSync(report, "utf8"))
    passed = json.numPassedTests
    failed = json.numFailedTests
    // vitest's JSON report counts skipped tests as pending, and todos apart
    skipped = json.numPendingTests + json.numTodoTests
    failures = json.testResults.flatMap((file) =>
      file.assertionResults
        .filter((test) => test.status === "failed")
        .map((test) => {
          const reason = String(test.failureMessages?.[0] ?? "").split("\n")[0]
          return `${relative(root, file.name)} > ${test.fullName}: ${reason}`
        })
    )
  } catch {
    // no report: the run itself broke, counted below by its exit code
  }
  /** Errors outside the tests (unhandled, a worker timing out): each fails the run. */
  let errors = []
  try {
    errors = JSON.parse(readFileSync(errorsFile, "utf8")).errors
  } catch {
    // no file: vitest did not reach the end of its run, said below by the exit code
  }
  ended(index)
  return {
    version: run.line === "" ? run.version : `${run.version} (Effect 4)`,
    code,
    passed,
    failed,
    skipped,
    failures,
    errors
  }
}

/** The first run alone, then the others two at a time, each started as soon as a slot is free. */
const results = [await pass(0)]
let next = 1
const slot = async () => {
  while (next < runs.length) {
    const index = next
    next += 1
    results[index] = await pass(index)
  }
}
await Promise.all([slot(), slot()])

const counts = (r) => `${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`
console.log("\n━━━ Node versions ━━━")
for (const r of results) {
  const state = r.code === 0 ? "ok" : `FAILED (exit ${r.code})`
  console.log(`Node ${r.version}: ${counts(r)} — ${state}`)
  for (const failure of r.failures) console.log(`  failed: ${failure}`)
  for (const error of r.errors) console.log(`  error outside the tests: ${error}`)
  if (r.code !== 0 && r.failed === 0 && r.errors.length === 0) {
    console.log("  no test failed and no error was reported: vitest itself stopped, see above")
  }
}
const broken = results.filter((r) => r.code !== 0)
const total = { passed: 0, failed: 0, skipped: 0 }
for (const r of results) {
  total.passed += r.passed
  total.failed += r.failed
  total.skipped += r.skipped
}
if (total.skipped > 0) {
  console.log(
    `\n${total.skipped} skipped: a suite skipped for a missing tool (Chromium, httpbin, redis-server) or an older Node (msw 3) says so above`
  )
}
if (broken.length > 0) {
  console.log(`\nFailing on Node ${broken.map((r) => r.version).join(", ")}`)
}
// The closing line, alone, for CI: totals over every version, and the errors outside the tests.
const outside = results.reduce((sum, r) => sum + r.errors.length, 0)
console.log(
  outside === 0
    ? counts(total)
    : `${counts(total)}, ${outside} errors outside the tests (named above)`
)
process.exitCode = broken.length > 0 ? 1 : 0
