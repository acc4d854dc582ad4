// Which Effect line `npm run demo` and `npm run demo:server` run on, and on which Node (demo.mjs).
// Effect 4 needs Node ≥ 22.19; the Effect 3 line runs on Node ≥ 20.

/** Effect 4's Node floor. */
export const EFFECT4_MIN_NODE = "22.19.0"

/** Whether Node `version` ("24.21.0", "v20.19.5") can run Effect 4. */
export const allowsEffect4 = (version) => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number)
  return major > 22 || (major === 22 && minor >= 19)
}

const byNewest = (a, b) => {
  const [x, y] = [a.version, b.version].map((v) => v.split(".").map(Number))
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return y[i] - x[i]
  return 0
}

/**
 * The line and the Node to run it on.
 *
 * - `requested`: `"3"`, `"4"` or `undefined` (choose).
 * - `running`: this Node's version.
 * - `cached`: Node builds already on disk, `{ version, path }` (those `npm test` fetched).
 *
 * Answers `{ line, node, why }`: `node` is `{ version, path }` of a cached build, `"running"` for
 * this Node, or `"fetch"` when the Effect 4 line was asked for and no Node here can run it;
 * `why` completes the announcement.
 */
export const chooseLine = ({ requested, running, cached }) => {
  if (requested !== undefined && requested !== "3" && requested !== "4") {
    throw new TypeError(`--line must be 3 or 4, got "${requested}"`)
  }
  if (requested === "3") return { line: 3, node: "running", why: "as asked (--line 3)" }
  if (allowsEffect4(running)) return { line: 4, node: "running", why: "" }
  const usable = cached.filter((build) => allowsEffect4(build.version)).sort(byNewest)[0]
  const older = `this shell's Node ${running} is older than Effect 4's ${EFFECT4_MIN_NODE}`
  if (usable !== undefined) return { line: 4, node: usable, why: `from .cache/node: ${older}` }
  if (requested === "4") return { line: 4, node: "fetch", why: `fetched: ${older}` }
  return {
    line: 3,
    node: "running",
    why: `because Node ${running} < ${EFFECT4_MIN_NODE}, which Effect 4 needs`
  }
}
