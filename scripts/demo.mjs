// `npm run demo` and `npm run demo:server`: the demo on the Effect 4 line (examples/) where Node
// allows it, else on the Effect 3 line (examples/v3/), and the first line printed says which, on
// which Node, and why.
//
//   node scripts/demo.mjs demo|server [--line 3|4] [the example's own options]
//
// Effect 4 needs Node ≥ 22.19: it runs on this Node when it can, else on a Node that `npm test`
// already fetched into .cache/node; with neither, the Effect 3 line runs on this Node. `--line 4`
// insists (fetching Node 24 into .cache/node if need be, saying so); `--line 3` picks the Effect 3
// line on any Node. The Effect 4 line's toolchain (toolchains/effect4) is installed the first time
// it is needed, saying so. Signals are passed on to the demo, and its exit code is this one's.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { bundleDemo } from "./bundle-program.mjs"
import { chooseLine } from "./demo-line.mjs"
import { ensureEffect4Toolchain } from "./effect4-toolchain.mjs"
import { nodeBinary, OTHER_VERSIONS, supported } from "./node-versions.mjs"

const root = resolve(import.meta.dirname, "..")
const PROGRAMS = { demo: "demo.ts", server: "server.ts" }

const [which, ...rest] = process.argv.slice(2)
const program = PROGRAMS[which]
if (program === undefined) {
  console.error(`usage: node scripts/demo.mjs demo|server [--line 3|4] [options]`)
  process.exit(2)
}

/** `--line N` (or `--line=N`) is ours; every other argument is the example's. */
let requested
const forwarded = []
for (let i = 0; i < rest.length; i++) {
  const arg = rest[i]
  if (arg === "--line") requested = rest[++i] ?? ""
  else if (arg.startsWith("--line=")) requested = arg.slice("--line=".length)
  else forwarded.push(arg)
}

const cached = supported
  ? OTHER_VERSIONS.map((version) => ({
      version,
      path: join(root, ".cache", "node", version, "package", "bin", "node")
    })).filter((build) => existsSync(build.path))
  : []

let choice
try {
  choice = chooseLine({ requested, running: process.versions.node, cached })
} catch (error) {
  console.error(error.message)
  process.exit(2)
}

let node = process.execPath
let version = process.versions.node
if (choice.node === "fetch") {
  if (!supported) {
    console.error(
      `No Node build to fetch for ${process.platform}/${process.arch}: use Node ≥ 22.19`
    )
    process.exit(1)
  }
  version = OTHER_VERSIONS.at(-1)
  node = nodeBinary(version)
} else if (choice.node !== "running") {
  ;({ version, path: node } = choice.node)
}

const entry =
  choice.line === 4 ? `svc-sdk, examples/${program}` : `svc-sdk/v3, examples/v3/${program}`
const script = which === "demo" ? "npm run demo" : "npm run demo:server"
const hint =
  choice.line === 3 && requested === undefined && supported
    ? ` (\`${script} -- --line 4\` fetches Node ${OTHER_VERSIONS.at(-1)} to run Effect 4)`
    : ""
const why = choice.why === "" ? "" : `, ${choice.why}${hint}`
console.log(`svc-sdk demo: Effect ${choice.line} line (${entry}) on Node ${version}${why}`)

if (choice.line === 4) ensureEffect4Toolchain()
let bundle
try {
  bundle = await bundleDemo(choice.line === 4 ? `examples/${program}` : `examples/v3/${program}`)
} catch (error) {
  // esbuild has printed where (a syntax error in an example)
  console.error(`svc-sdk demo: could not bundle the example: ${error.message.split("\n")[0]}`)
  process.exit(1)
}
// Effect 4 and its companions from the Effect 4 toolchain (effect4-loader.mjs)
const args = choice.line === 4 ? ["--import", "./scripts/effect4-loader.mjs", bundle] : [bundle]

const child = spawn(node, [...args, ...forwarded], {
  cwd: root,
  stdio: "inherit",
  // what the demo starts in turn runs on the same Node
  env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` }
})
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => child.kill(signal))
}
child.on("exit", (code, signal) => {
  process.exitCode = code ?? (signal === null ? 1 : 128 + (signal === "SIGINT" ? 2 : 15))
})
