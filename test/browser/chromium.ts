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

/** A page script (a path relative to this folder) bundled for the browser. */
export const bundle = async (entry: string): Promise<string> => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    write: false,
    plugins: [fetchTransport],
    logLevel: "silent"
  })
  return result.outputFiles[0]?.text ?? ""
}
