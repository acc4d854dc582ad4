/**
 * Runs the client in Bun, Deno and Cloudflare's workerd (their binaries from
 * scripts/runtimes.mjs): bundles test/runtimes/client.ts with esbuild for a runtime and an Effect
 * line, as that runtime resolves the package's conditional `imports`, starts it serving on
 * loopback, and offers each of its clients to the conformance suite as a `TransportUnderTest`
 * whose calls cross over HTTP (wire.ts).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join, resolve } from "node:path"
import type { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import { build, type Plugin } from "esbuild"
import { type Runtime, runtimeBinary } from "../../scripts/runtimes.mjs"
import type { ClientUnderTest, Settings, TransportUnderTest } from "../Client/conformance/suite.js"
import { type Answer, type Api, type Call, decode, encode } from "./wire.js"

const ROOT = fileURLToPath(new URL("../../", import.meta.url))
const EFFECT4 = join(ROOT, "toolchains", "effect4")

export type Line = 3 | 4
export const RUNTIME_LINES: ReadonlyArray<Line> = [4, 3]

/** The export conditions each runtime's resolution matches, in its own order. */
const CONDITIONS: Record<Runtime, ReadonlyArray<string>> = {
  bun: ["bun", "node", "import", "default"],
  deno: ["deno", "node", "import", "default"],
  // as wrangler bundles a worker
  workerd: ["workerd", "worker", "browser", "import", "default"]
}

type Target = string | null | { readonly [condition: string]: Target }

/** The target `conditions` pick in a conditional map, as Node's resolution walks it. */
const pick = (target: Target, conditions: ReadonlyArray<string>): string | null => {
  if (target === null || typeof target === "string") return target
  for (const [condition, next] of Object.entries(target)) {
    if (conditions.includes(condition)) {
      const found = pick(next, conditions)
      if (found !== null) return found
    }
  }
  return null
}

/**
 * The package's `#imports` as `runtime` resolves them, each built file taken from its source
 * (`dist/<esm|node>/x.js` → `src/x.ts`), so that no build is needed.
 */
const packageImports = (runtime: Runtime): Plugin => ({
  name: "svc-package-imports",
  setup: (build) => {
    const imports = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).imports
    build.onResolve({ filter: /^#/ }, (args) => {
      const built = pick(imports[args.path] ?? null, CONDITIONS[runtime])
      const source = built && /^\.\/dist\/(?:esm|node)\/(.*)\.js$/.exec(built)?.[1]
      if (!source) return { errors: [{ text: `${args.path} has no ${runtime} target` }] }
      return { path: join(ROOT, "src", `${source}.ts`) }
    })
  }
})

/**
 * The Effect 4 line: the tests' imports of the Effect 3 binding (`src/v3/…`) become the root
 * binding's, `FetchHttpClient` is `effect/http`'s, and `effect` resolves from the Effect 4
 * toolchain, as in an Effect 4 app.
 */
const onEffect4: Plugin = {
  name: "svc-effect4",
  setup: (build) => {
    build.onResolve({ filter: /\/src\/v3\/(Client|index|Auth)/ }, (args) => {
      const path = resolve(args.resolveDir, args.path).replace("/src/v3/", "/src/")
      return { path: path.replace(/\.js$/, ".ts") }
    })
    build.onResolve({ filter: /^\.\/fetchHttpClient\.js$/ }, () => ({
      path: join(ROOT, "test", "v4", "runtimes", "fetchHttpClient.ts")
    }))
    build.onResolve({ filter: /^effect(\/|$)/ }, (args) =>
      args.pluginData === EFFECT4
        ? undefined
        : build.resolve(args.path, { kind: args.kind, resolveDir: EFFECT4, pluginData: EFFECT4 })
    )
  }
}

/** The client bundled for `runtime` on `line`: one ES module, web APIs only (no `node:` import). */
export const bundleClient = async (runtime: Runtime, line: Line): Promise<string> => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`./entries/${runtime}.ts`, import.meta.url))],
    bundle: true,
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: [...CONDITIONS[runtime]],
    format: "esm",
    target: "es2022",
    write: false,
    plugins: line === 4 ? [onEffect4, packageImports(runtime)] : [packageImports(runtime)],
    logLevel: "silent"
  })
  return result.outputFiles[0]?.text ?? ""
}

/** A runtime serving the bundled client on loopback. */
export interface RunningClient {
  readonly origin: string
  /** Where the runtime learns that the test aborted a call's signal. */
  readonly abortChannel: AbortChannel
  /** What the runtime wrote to stderr so far. */
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

const workerdConfig = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "client", worker = .client),
    # outbound requests may reach loopback only
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "client")],
);

const client :Workerd.Worker = (
  modules = [(name = "client.mjs", esModule = embed "client.mjs")],
  compatibilityDate = "2026-11-01",
  globalOutbound = "loopback",
);
`

/** The first JSON line `stream` gives with a `port`. */
const portFrom = (stream: Readable, child: ChildProcess, stderr: () => string): Promise<number> =>
  new Promise((resolvePort, reject) => {
    let text = ""
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8")
      for (const line of text.split("\n")) {
        const port = /"port":\s*(\d+)/.exec(line)?.[1]
        if (port !== undefined) {
          stream.off("data", onData)
          resolvePort(Number(port))
        }
      }
    }
    stream.on("data", onData)
    child.once("exit", (code) =>
      reject(new Error(`exited (${code}) before listening: ${stderr()}`))
    )
  })

/** Starts `runtime` serving `script` (a bundle from `bundleClient`) in `dir`. */
export const startClient = async (
  runtime: Runtime,
  script: string,
  dir: string
): Promise<RunningClient> => {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const file = join(dir, "client.mjs")
  writeFileSync(file, script)
  const binary = runtimeBinary(runtime)
  let child: ChildProcess
  let portStream: Readable
  if (runtime === "workerd") {
    writeFileSync(join(dir, "config.capnp"), workerdConfig)
    child = spawn(binary, ["serve", "config.capnp", "--control-fd=3"], {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe", "pipe"]
    })
    portStream = child.stdio[3] as Readable
  } else {
    const args =
      runtime === "bun"
        ? ["run", "--no-install", file]
        : ["run", "--allow-net=127.0.0.1", "--no-config", "--no-npm", file]
    child = spawn(binary, args, {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      // Deno's cache in the scratch folder, never the user's; no update checks
      env: { ...process.env, DENO_DIR: join(dir, "deno-dir"), DENO_NO_UPDATE_CHECK: "1" }
    })
    portStream = child.stdout as Readable
  }
  let stderr = ""
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const port = await portFrom(portStream, child, () => stderr)
  const abortChannel = await startAbortChannel()
  return {
    origin: `http://127.0.0.1:${port}`,
    abortChannel,
    stderr: () => stderr,
    stop: async () => {
      await abortChannel.close()
      if (child.exitCode !== null) return
      await new Promise((done) => {
        child.once("exit", done)
        child.kill()
      })
    }
  }
}

/**
 * The abort channel: `GET /<id>` answers `aborted` once the signal registered under that id aborts,
 * and `ended` once its call has ended; the runtime waits on it from the call's own request.
 */
interface AbortChannel {
  readonly url: (signal: AbortSignal) => { readonly url: string; readonly end: () => void }
  readonly close: () => Promise<void>
}

const startAbortChannel = async (): Promise<AbortChannel> => {
  const signals = new Map<string, { signal: AbortSignal; ended: boolean; wake?: () => void }>()
  const server = createServer((request, response) => {
    const entry = signals.get((request.url ?? "/").slice(1))
    if (entry === undefined) return response.end("ended")
    const answer = () => response.end(entry.ended ? "ended" : "aborted")
    if (entry.ended || entry.signal.aborted) return answer()
    entry.wake = answer
    entry.signal.addEventListener("abort", answer, { once: true })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  let ids = 0
  return {
    url: (signal) => {
      const id = String(++ids)
      const entry: { signal: AbortSignal; ended: boolean; wake?: () => void } = {
        signal,
        ended: false
      }
      signals.set(id, entry)
      return {
        url: `${origin}/${id}`,
        end: () => {
          entry.ended = true
          entry.wake?.()
          signals.delete(id)
        }
      }
    },
    close: () =>
      new Promise((done) => {
        server.closeAllConnections()
        server.close(() => done())
      })
  }
}

/** One of the runtime's clients, as the conformance suite drives a transport. */
export const remoteTransport = (
  name: string,
  running: () => RunningClient,
  api: Api
): TransportUnderTest => ({
  name,
  make: (baseUrl, config = {}): ClientUnderTest => {
    const send = async (
      method: Call["method"],
      endpoint: string,
      body: unknown,
      options: Settings = {}
    ) => {
      const { origin, abortChannel } = running()
      const signal = options.signal as AbortSignal | undefined
      const channel = signal === undefined ? undefined : abortChannel.url(signal)
      const call: Call = {
        api,
        baseUrl,
        config: await encode(config),
        method,
        endpoint,
        body: await encode(body),
        options: await encode(options),
        abortUrl: channel?.url ?? null
      }
      try {
        const answer = await fetch(`${origin}/call`, { method: "POST", body: JSON.stringify(call) })
        if (!answer.ok) throw new Error(`the runtime failed the call: ${await answer.text()}`)
        const { response, errors } = (await answer.json()) as Answer
        // the suite's own onError sees what the runtime's client gave its onError
        const onError = config.onError as ((error: unknown) => void) | undefined
        for (const error of errors) onError?.(error)
        return decode(response) as Awaited<ReturnType<ClientUnderTest["get"]>>
      } finally {
        channel?.end()
      }
    }
    return {
      get: (endpoint, options) => send("get", endpoint, undefined, options),
      post: (endpoint, body, options) => send("post", endpoint, body, options),
      put: (endpoint, body, options) => send("put", endpoint, body, options)
    }
  }
})
