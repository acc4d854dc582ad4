/**
 * The browser suites' harness: Debian's Chromium, started headless with the flags this machine
 * needs (no sandbox as root, no background networking on a closed network), and page scripts
 * bundled as a browser app would get the library (the fetch transport).
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build, type Plugin } from "esbuild"
import { type Browser, chromium } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

export const hasChromium = existsSync(CHROMIUM)

/** What Chromium runs with: this machine's needs first, then Playwright's own launch flags. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-startup-window",
  "--hide-scrollbars",
  "--mute-audio",
  // playwright-core 1.65's (chromiumSwitches): no background work, no throttled timers, no
  // upgrades of http:// navigations, one storage per site as the tests expect it
  "--disable-field-trial-config",
  "--disable-background-networking",
  "--disable-background-timer-throttling",
  "--disable-backgrounding-occluded-windows",
  "--disable-back-forward-cache",
  "--disable-breakpad",
  "--disable-component-extensions-with-background-pages",
  "--disable-component-update",
  "--no-default-browser-check",
  "--disable-default-apps",
  "--disable-dev-shm-usage",
  "--disable-extensions",
  "--disable-features=AvoidUnnecessaryBeforeUnloadCheckSync,DestroyProfileOnBrowserClose,HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,LensOverlay,MediaRouter,PaintHolding,ThirdPartyStoragePartitioning,AvoidCorsURLLoaderRestartOnRedirect,OptimizationHints,NetworkTimeServiceQuerying,AimEnabled,PreconnectToSearch",
  "--enable-features=SkipListAccountsWithoutGaiaCookies",
  "--allow-pre-commit-input",
  "--disable-hang-monitor",
  "--disable-ipc-flooding-protection",
  "--disable-popup-blocking",
  "--disable-prompt-on-repost",
  "--disable-renderer-backgrounding",
  "--force-color-profile=srgb",
  "--metrics-recording-only",
  "--no-first-run",
  "--password-store=basic",
  "--use-mock-keychain",
  "--no-service-autorun",
  "--disable-search-engine-choice-screen",
  "--enable-unsafe-swiftshader",
  "--disable-sync"
]

/** How long Chromium may take to start listening and Playwright to connect, together. */
const START_MILLIS = 30_000

/**
 * Runs Chromium (its arguments after the profile's folder) and ends its process group, the profile
 * removed, once its standard input closes: when the harness closes it, or when the test process
 * ends without closing it (a worker stopped at a timeout), which would otherwise leave Chromium
 * running. SIGTERM first, SIGKILL 5 s later or once the browser has ended. It ends with the
 * browser, so the harness sees Chromium end.
 */
const WATCHDOG = `profile=$1
shift
exec 3<&0
"$@" </dev/null 3<&- &
browser=$!
trap '' TERM
{
  read -r _ <&3
  kill -TERM 0
  i=0
  while kill -0 "$browser" 2>/dev/null && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  rm -rf "$profile"
  kill -KILL 0
} &
wait "$browser"`

/**
 * Debian's Chromium, started by this harness and driven by Playwright over a DevTools port
 * (`connectOverCDP`). Started by Playwright (`chromium.launch`, over a pipe), Chromium 156 keeps a
 * hidden browser page (its omnibox popup) busy at a sixth of a core for as long as it runs:
 * about 75 s of CPU over `npm test`'s browser suites, which the port does not cost. Closing the
 * browser ends Chromium and removes its profile. A start that hangs fails naming itself.
 */
export const launchChromium = async (): Promise<Browser> => {
  const profile = mkdtempSync(join(tmpdir(), "svc-chromium-"))
  // in a process group of its own, under the watchdog: closing ends every process it started
  // before the profile goes
  const child = spawn(
    "/bin/sh",
    [
      "-c",
      WATCHDOG,
      "watchdog",
      profile,
      CHROMIUM,
      ...FLAGS,
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`
    ],
    { stdio: ["pipe", "ignore", "pipe"], detached: true }
  )
  // the watchdog gone, writing to it is nothing to report
  child.stdin.on("error", () => {})
  const group = child.pid
  /** Signals Chromium's process group; false once no process of it is left (or it never ran). */
  const signal = (name: NodeJS.Signals | 0): boolean => {
    if (group === undefined) return false
    try {
      process.kill(-group, name)
      return true
    } catch {
      return false
    }
  }
  // a test process that ends without closing it does not leave it running
  const onExit = () => signal("SIGKILL")
  process.once("exit", onExit)
  let ending: Promise<void> | undefined
  const end = () => {
    ending ??= (async () => {
      process.off("exit", onExit)
      child.stdin.end()
      for (let waited = 0; signal(0); waited += 50) {
        if (waited === 10_000) signal("SIGKILL")
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      rmSync(profile, { recursive: true, force: true })
    })()
    return ending
  }
  const started = Date.now()
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      let printed = ""
      const timer = setTimeout(
        () =>
          reject(new Error(`Chromium did not listen within ${START_MILLIS / 1000} s:\n${printed}`)),
        START_MILLIS
      )
      // read to the end: a full pipe would stall Chromium
      child.stderr.on("data", (chunk: Buffer) => {
        if (printed.length > 65_536) return
        printed += chunk.toString()
        const listening = /DevTools listening on (ws:\/\/\S+)/.exec(printed)
        if (listening) {
          clearTimeout(timer)
          resolve(listening[1]!)
        }
      })
      child.once("exit", () => {
        clearTimeout(timer)
        reject(new Error(`Chromium ended before it listened:\n${printed}`))
      })
      child.once("error", (error) => {
        clearTimeout(timer)
        reject(new Error(`Chromium did not start: ${error.message}`))
      })
    })
    // what is left of the start's time: a start fails naming itself before a test's timeout
    const browser = await chromium.connectOverCDP(endpoint, {
      timeout: Math.max(1_000, START_MILLIS - (Date.now() - started))
    })
    browser.once("disconnected", () => void end())
    // connected to, a browser's close only disconnects: this one also ends Chromium, even when
    // Chromium does not answer (its connections would otherwise hold a test server's close open)
    const disconnect = browser.close.bind(browser)
    return Object.assign(browser, {
      close: async (options?: { readonly reason?: string }) => {
        try {
          await answered("disconnecting", disconnect(options), 10)
        } finally {
          await end()
        }
      }
    })
  } catch (error) {
    await end()
    throw error
  }
}

/**
 * `promise`, or a failure naming `step` once Chromium has not answered for `seconds`. Playwright
 * bounds a launch and a navigation, not a new context, a new page, the cookie jar or a close: a
 * Chromium that stops answering would hold the test to its timeout, and its cleanup after it,
 * with nothing to say which step it was.
 */
export const answered = <A>(step: string, promise: Promise<A>, seconds = 20): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${step}: Chromium did not answer in ${seconds} s`)),
      seconds * 1000
    )
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** `#transport`, `#httpClientAdapter` and `#asyncStorage` as the `browser` condition resolves them, from the sources. */
const fetchTransport: Plugin = {
  name: "svc-transport-fetch",
  setup: (build) => {
    build.onResolve({ filter: /^#transport$/ }, () => ({
      path: fileURLToPath(new URL("../../src/core/transport.fetch.ts", import.meta.url))
    }))
    build.onResolve({ filter: /^#httpClientAdapter$/ }, () => ({
      path: fileURLToPath(
        new URL("../../src/v3/Client/internal/httpClientAdapter.browser.ts", import.meta.url)
      )
    }))
    build.onResolve({ filter: /^#asyncStorage$/ }, () => ({
      path: fileURLToPath(
        new URL("../../src/Storage/internal/asyncStorageModule.ts", import.meta.url)
      )
    }))
  }
}

const effect4 = fileURLToPath(new URL("../../toolchains/effect4", import.meta.url))

/**
 * The Effect 4 line in a page: the pages import the Effect 3 entry (`src/v3/index.js`), which
 * becomes the root (Effect 4) entry, and `effect` resolves from the Effect 4 toolchain, as in an
 * Effect 4 app.
 */
const onEffect4: Plugin = {
  name: "svc-effect4",
  setup: (build) => {
    build.onResolve({ filter: /\/src\/v3\/index\.js$/ }, () => ({
      path: fileURLToPath(new URL("../../src/index.ts", import.meta.url))
    }))
    build.onResolve({ filter: /^#onDemand$/ }, () => ({
      path: fileURLToPath(new URL("../../src/Client/internal/onDemand.browser.ts", import.meta.url))
    }))
    build.onResolve({ filter: /^effect(\/|$)/ }, (args) =>
      args.pluginData === effect4
        ? undefined
        : build.resolve(args.path, { kind: args.kind, resolveDir: effect4, pluginData: effect4 })
    )
  }
}

/** The Effect lines a page can be bundled on. */
export const LINES = [4, 3] as const

/** A page script (a path relative to this folder) bundled for the browser, on an Effect line. */
export const bundle = async (entry: string, line: 3 | 4 = 3): Promise<string> => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    write: false,
    plugins: line === 4 ? [onEffect4, fetchTransport] : [fetchTransport],
    logLevel: "silent"
  })
  return result.outputFiles[0]?.text ?? ""
}

/**
 * A page script bundled as an app's production build splits it (ES modules, what is imported on
 * demand in chunks of its own): each output by its path under `/`, the entry at `/<name>.js`.
 */
export const bundleSplit = async (
  entry: string,
  line: 3 | 4 = 3
): Promise<ReadonlyMap<string, string>> => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    splitting: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    outdir: "/split",
    entryNames: "[name]",
    chunkNames: "[name]-[hash]",
    write: false,
    plugins: line === 4 ? [onEffect4, fetchTransport] : [fetchTransport],
    logLevel: "silent"
  })
  return new Map(result.outputFiles.map((file) => [file.path.replace(/^\/split/, ""), file.text]))
}

/**
 * Serves a page split by {@link bundleSplit} on 127.0.0.1: `/` loads `/<entry>.js` as a module,
 * and each output is served by its path, unless `intercept` answers for it (it gets the path and
 * how to send the file, and says whether it answered); anything else is a 404.
 */
export const serveSplit = async (
  files: ReadonlyMap<string, string>,
  entry: string,
  intercept: (path: string, send: () => void, response: ServerResponse) => boolean = () => false
): Promise<{ readonly url: string; readonly close: () => void }> => {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://page").pathname
    if (path === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      response.end(`<!doctype html><script type="module" src="/${entry}.js"></script>`)
      return
    }
    const text = files.get(path)
    const send = () => {
      if (text === undefined) return void response.writeHead(404).end()
      response.writeHead(200, { "content-type": "text/javascript; charset=utf-8" })
      response.end(text)
    }
    if (!intercept(path, send, response)) send()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections()
      server.close()
    }
  }
}
