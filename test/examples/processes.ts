/**
 * The examples import `svc-sdk` by name, which resolves to `src/` only under the
 * `svc-sdk-source` condition: so the tests run them the way a newcomer does, as child processes
 * (tsx with that condition), and talk to them over loopback.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const TSX = fileURLToPath(new URL("../../node_modules/tsx/dist/cli.mjs", import.meta.url))

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `npm run <args>` in the repository and resolves once it exits, whatever the code. */
export const npmRun = (args: ReadonlyArray<string>): Promise<Finished> =>
  new Promise((resolve) => {
    execFile("npm", ["run", ...args], { cwd: ROOT, timeout: 80_000 }, (error, stdout, stderr) =>
      resolve({
        code: error ? (typeof error.code === "number" ? error.code : -1) : 0,
        stdout,
        stderr
      })
    )
  })

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

/** Starts `examples/server.ts` on a free port with `args`; resolves with its URL once it listens. */
export const startDemoServer = (
  args: ReadonlyArray<string> = [],
  env: Record<string, string> = {}
): Promise<DemoServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [TSX, "--conditions=svc-sdk-source", "examples/server.ts", "--port", "0", ...args],
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
