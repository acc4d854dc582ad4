/**
 * The examples import `svc-sdk` by name, which resolves to `src/` only under the
 * `svc-sdk-source` condition: so the tests run them the way a newcomer does, through
 * `npm run demo` and `npm run demo:server` (scripts/demo.mjs, which picks the Effect line), as
 * child processes on this Node, and talk to them over loopback.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const LAUNCHER = fileURLToPath(new URL("../../scripts/demo.mjs", import.meta.url))

/** The Effect line a demo runs on: 4 (`examples/`, Node ≥ 22.19) or 3 (`examples/v3/`). */
export type Line = 3 | 4

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `npm run <args>` in the repository and resolves once it exits, whatever the code. */
export const npmRun = (args: ReadonlyArray<string>): Promise<Finished> =>
  new Promise((resolve) => {
    execFile("npm", ["run", ...args], { cwd: ROOT, timeout: 150_000 }, (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === "number" ? error.code : -1) : 0,
        stdout,
        stderr
      })
    )
  })

/** `npm run demo` on `line`, with the demo's own `args` (`--effect`, `--promise`). */
export const runDemo = (line: Line, args: ReadonlyArray<string> = []): Promise<Finished> =>
  npmRun(["demo", "--", "--line", String(line), ...args])

export interface DemoServer {
  readonly url: string
  /** Ctrl-C: resolves with the exit code once the process has ended. */
  readonly stop: () => Promise<number | null>
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode)
    else child.once("exit", (code) => resolve(code))
  })

/**
 * Starts the demo server (`npm run demo:server`) of `line` on a free port with `args`; resolves
 * with its URL once it listens. The Effect 3 line by default, which runs on every Node.
 */
export const startDemoServer = (
  args: ReadonlyArray<string> = [],
  env: Record<string, string> = {},
  line: Line = 3
): Promise<DemoServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [LAUNCHER, "server", "--line", String(line), "--port", "0", ...args],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } }
    )
    let output = ""
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const url = /demo server on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1]
      if (url === undefined) return
      child.stdout?.off("data", onData)
      resolve({
        url,
        stop: () => {
          child.kill("SIGINT")
          return exited(child)
        }
      })
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once("exit", (code) =>
      reject(new Error(`server exited (${code}) before listening:\n${output}`))
    )
  })
