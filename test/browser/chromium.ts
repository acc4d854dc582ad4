/**
 * The browser suites' harness: Debian's Chromium, started headless with the flags this machine
 * needs (no sandbox as root, no background networking on a closed network), and page scripts
 * bundled as a browser app would get the library (the fetch transport).
 */
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { build, type Plugin } from "esbuild"
import { type Browser, chromium } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

export const hasChromium = existsSync(CHROMIUM)

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    // a launch that hangs fails naming itself, within the tests' time (Playwright waits 3 minutes)
    timeout: 30_000,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic"
    ]
  })

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
