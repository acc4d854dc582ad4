// The Effect 4 line's toolchain (effect 4, its Node platform, vitest 5 and @effect/vitest 4) lives in
// toolchains/effect4, installed apart from the root's Effect 3 one: one node_modules cannot hold
// both. `npm test` and `npm run typecheck` install it from its own lockfile the first time they need
// it, saying so.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")

/** The toolchain's folder. */
export const EFFECT4_TOOLCHAIN = join(root, "toolchains", "effect4")

/** Whether each package the toolchain lists is installed in it. */
const installed = () => {
  const { devDependencies } = JSON.parse(
    readFileSync(join(EFFECT4_TOOLCHAIN, "package.json"), "utf8")
  )
  return Object.keys(devDependencies).every((name) =>
    existsSync(join(EFFECT4_TOOLCHAIN, "node_modules", name, "package.json"))
  )
}

/**
 * Installs the toolchain from its lockfile unless every package it lists is there already (one
 * added since the last install is installed too); returns its folder.
 */
export const ensureEffect4Toolchain = () => {
  if (!installed()) {
    console.warn("Installing the Effect 4 toolchain into toolchains/effect4/ (npm ci), once")
    // its vitest and Node platform want Node ≥ 22, which runs them: no engine warnings on this Node
    execFileSync(
      "npm",
      ["ci", "--prefix", EFFECT4_TOOLCHAIN, "--no-audit", "--no-fund", "--loglevel=error"],
      { stdio: "inherit" }
    )
  }
  return EFFECT4_TOOLCHAIN
}

if (import.meta.filename === process.argv[1]) ensureEffect4Toolchain()
