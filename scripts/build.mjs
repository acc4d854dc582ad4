// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with declaration files.
import { execFileSync } from "node:child_process"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"

const tsc = (project) => execFileSync("npx", ["tsc", "-p", project], { stdio: "inherit" })

rmSync("dist", { recursive: true, force: true })
tsc("tsconfig.build.json")
tsc("tsconfig.build.cjs.json")
mkdirSync("dist/cjs", { recursive: true })
writeFileSync("dist/cjs/package.json", `${JSON.stringify({ type: "commonjs" })}\n`)
