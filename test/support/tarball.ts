/**
 * A user's project made from the packed package: `npm pack` of the built repository into a fresh
 * folder with its own package.json, ready for an install the way a user would run it.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const root = resolve(import.meta.dirname, "../..")

/** The version of a package installed in this repository (or in the folder `from`). */
export const versionOf = (name: string, from: string = root): string =>
  JSON.parse(readFileSync(join(from, "node_modules", name, "package.json"), "utf8")).version

/** The peers at the versions this repository tests with: `effect@…`, `@effect/platform@…`. */
export const peerSpecs = (): Array<string> =>
  [`effect`, `@effect/platform`].map((name) => `${name}@${versionOf(name)}`)

/**
 * Runs a command to its end and answers its stdout; a failure (a non-zero exit, a signal) rejects
 * with an error that holds the command, its stdout and its stderr. Asynchronous on purpose: a test
 * worker blocked in a synchronous child process cannot answer the test runner, and on a loaded
 * machine the runner then fails the whole run ("Timeout calling onTaskUpdate").
 */
export const exec = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv }
): Promise<string> =>
  new Promise((done, fail) => {
    execFile(
      command,
      args,
      { ...options, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null) return done(stdout)
        fail(
          Object.assign(
            new Error(
              `${command} ${args.join(" ")} failed (${error.code ?? error.signal}):\n${stdout}\n${stderr}`
            ),
            { stdout, stderr }
          )
        )
      }
    )
  })

/** A fresh folder with `package.json` and the packed tarball in it. */
export const packedScratch = async (
  prefix: string,
  packageJson: Record<string, unknown>
): Promise<{ readonly dir: string; readonly tarball: string }> => {
  if (!existsSync(join(root, "dist/esm/index.js"))) {
    throw new Error("dist/ is missing: `npm test` builds it first (npm run build)")
  }
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const packed = JSON.parse(
    await exec("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: root
    })
  ) as Array<{ filename: string }>
  writeFileSync(join(dir, "package.json"), JSON.stringify(packageJson))
  return { dir, tarball: join(dir, packed[0]!.filename) }
}

/** `npm install` into `dir`, from npm's cache where it can, running no install scripts. */
export const npmInstall = async (dir: string, specs: ReadonlyArray<string>): Promise<void> => {
  await exec(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...specs],
    { cwd: dir }
  )
}

/** A loopback port nothing listens on (for servers that cannot take port 0). */
export const freePort = (): Promise<number> =>
  new Promise((done, fail) => {
    const probe = Net.createServer()
    probe.once("error", fail)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as Net.AddressInfo
      probe.close(() => done(port))
    })
  })
