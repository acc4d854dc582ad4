// Completes package-lock.json with the other platforms' optional binaries (biome, rollup,
// msgpackr-extract…) when the registry this lockfile was made against does not serve them: npm then
// leaves them out of the lockfile, and `npm ci` refuses a lockfile that lacks an optional dependency.
// Each added entry carries the os/cpu/libc of its package name, so npm skips it on other machines and
// fetches it by name (no pinned URL) on the machine it is for.
//
//   npm install && node scripts/lock-platforms.mjs [path/to/package-lock.json]
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"

const file = process.argv[2]
  ? resolve(process.argv[2])
  : new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(file, "utf8"))
const packages = lock.packages
const oses = ["android", "darwin", "freebsd", "netbsd", "openbsd", "openharmony", "win32", "linux"]
const cpus = ["arm64", "x64", "ia32", "loong64", "ppc64", "riscv64", "s390x", "arm"]

let added = 0
for (const [path, entry] of Object.entries({ ...packages })) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${path}/node_modules/${name}`
    const key = `node_modules/${name}`
    if (packages[key] !== undefined || packages[nested] !== undefined) continue
    const os = oses.find((candidate) => name.includes(candidate))
    const cpu = cpus.find((candidate) => name.includes(candidate))
    if (os === undefined || cpu === undefined) {
      throw new Error(`${name} is missing from the lockfile and is not a platform binary`)
    }
    // keys in the order npm writes them, so that a later `npm install` leaves the entry as it is
    const platformEntry = { version, cpu: [cpu] }
    if (entry.dev) platformEntry.dev = true
    if (name.includes("musl")) platformEntry.libc = ["musl"]
    else if (os === "linux" && name.includes("gnu")) platformEntry.libc = ["glibc"]
    platformEntry.optional = true
    platformEntry.os = [os]
    packages[key] = platformEntry
    added++
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1))
)
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`package-lock.json: ${added} platform entries added`)
