// `npm run typecheck`: the sources, tests, examples and benchmarks of the Effect 3 line and the
// shared core (tsconfig.json), then the Effect 4 line against its own toolchain (tsconfig.v4.json).
import { execFileSync } from "node:child_process"
import { ensureEffect4Toolchain } from "./effect4-toolchain.mjs"

ensureEffect4Toolchain()
for (const project of ["tsconfig.json", "tsconfig.v4.json"]) {
  execFileSync("npx", ["tsc", "--noEmit", "-p", project], { stdio: "inherit" })
}
