import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./tarball.js"

/** Debian's `redis-server`, which `.ci/run` installs. */
export const REDIS_SERVER = "/usr/bin/redis-server"

/**
 * A real `redis-server` on a free loopback port, with its own directory and the append-only file on
 * (every write synced), so that a restart keeps what was written.
 */
export interface RedisServer {
  readonly url: string
  readonly port: number
  readonly directory: string
  /** Stops the server (its data stays in `directory`). */
  readonly stop: () => Promise<void>
  /** Starts it again on the same port and directory. */
  readonly start: () => Promise<void>
  /**
   * Freezes the process (SIGSTOP): the kernel still accepts connections on its port, and the server
   * never answers them until `thaw`.
   */
  readonly freeze: () => void
  /** Lets a frozen server run again (SIGCONT). */
  readonly thaw: () => void
  /** Stops it and removes its directory. */
  readonly dispose: () => Promise<void>
}

export const startRedis = async (): Promise<RedisServer> => {
  const port = await freePort()
  const directory = mkdtempSync(join(tmpdir(), "svc-redis-"))
  let child: ChildProcess | undefined
  const start = () =>
    new Promise<void>((ready, fail) => {
      const server = spawn(
        REDIS_SERVER,
        [
          "--bind",
          "127.0.0.1",
          "--port",
          String(port),
          "--dir",
          directory,
          "--appendonly",
          "yes",
          "--appendfsync",
          "always",
          "--save",
          "",
          "--protected-mode",
          "yes",
          "--daemonize",
          "no"
        ],
        { stdio: ["ignore", "pipe", "pipe"] }
      )
      let output = ""
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        if (output.includes("Ready to accept connections")) {
          server.stdout.off("data", onData)
          server.stdout.resume()
          ready()
        }
      }
      server.stdout.on("data", onData)
      server.stderr.resume()
      server.once("error", fail)
      server.once("exit", (code) => fail(new Error(`redis-server exited (${code}): ${output}`)))
      child = server
    })
  const stop = () =>
    new Promise<void>((done) => {
      const server = child
      child = undefined
      if (server === undefined || server.exitCode !== null) return done()
      server.removeAllListeners("exit")
      server.once("exit", () => done())
      // a frozen process acts on SIGTERM only once it runs again
      server.kill("SIGCONT")
      server.kill("SIGTERM")
    })
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    directory,
    stop,
    start,
    freeze: () => {
      child?.kill("SIGSTOP")
    },
    thaw: () => {
      child?.kill("SIGCONT")
    },
    dispose: async () => {
      await stop()
      rmSync(directory, { recursive: true, force: true })
    }
  }
}
