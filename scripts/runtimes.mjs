// The JavaScript runtimes besides Node that `npm test` runs the client in (test/runtimes): Bun,
// Deno and Cloudflare's workerd, each the official Linux x64 binary its makers publish on the npm
// registry. Each is fetched once into .cache/ (`npm pack`, then `tar`, as node-versions.mjs does
// for Node), saying so, and reused; nothing else is downloaded.
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { unpack } from "./node-versions.mjs"

/** The runtimes, their registry package, version and the binary's path inside the package. */
export const RUNTIMES = {
  bun: { name: "@oven/bun-linux-x64", version: "1.4.5", path: "package/bin/bun", size: "50 MB" },
  deno: { name: "@deno/linux-x64-glibc", version: "2.9.6", path: "package/deno", size: "40 MB" },
  workerd: {
    name: "@cloudflare/workerd-linux-64",
    version: "1.20261117.1",
    path: "package/bin/workerd",
    size: "45 MB"
  }
}

const root = resolve(import.meta.dirname, "..")

/** The path of `runtime`'s binary, fetched into the cache when missing. */
export const runtimeBinary = (runtime) => {
  const { name, version, path, size } = RUNTIMES[runtime]
  const dir = join(root, ".cache", runtime, version)
  const binary = join(dir, path)
  if (existsSync(binary)) return binary
  unpack(name, version, dir, [path], `${runtime} ${version}, about ${size},`)
  return binary
}

if (process.argv[1] === import.meta.filename) {
  for (const runtime of Object.keys(RUNTIMES)) console.log(runtimeBinary(runtime))
}
