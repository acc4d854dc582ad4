/**
 * The examples import `svc-sdk` by name, which resolves to `src/` only under the
 * `svc-sdk-source` condition: so the tests run them the way a newcomer does, through
 * `npm run demo` and `npm run demo:server` (scripts/demo.mjs, which picks the Effect line), as
 * child processes on this Node, and talk to them over loopback.
 */
import { type ChildProcess, spawn } from "node:child_process"
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

/** How long `npm run` may take before it is ended, with every process it started. */
const NPM_RUN_TIMEOUT = 150_000

/**
 * Runs `npm run <args>` in the repository and resolves once it exits, whatever the code. It runs
 * in a process group of its own: one that outlasts {@link NPM_RUN_TIMEOUT} is ended with what it
 * started (npm, the launcher, the demo), leaving nothing behind (code -1).
 */
export const npmRun = (args: ReadonlyArray<string>): Promise<Finished> =>
  new Promise((resolve) => {
    const child = spawn("npm", ["run", ...args], {
      cwd: ROOT,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        // the group has ended meanwhile
      }
    }, NPM_RUN_TIMEOUT)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code: timedOut ? -1 : code, stdout, stderr })
    })
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
