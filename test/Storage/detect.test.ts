import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build } from "esbuild"
import { afterEach, describe, expect, it, vi } from "vitest"
import {
  detectStorage,
  findSessionId,
  isCombinedStorage,
  loadAsyncStorage
} from "../../src/Storage/index.js"
import { loadWith } from "../../src/Storage/internal/asyncStorage.js"
import { FakeCookieDocument, FakeWebStorage, fakeAsyncStorage } from "./fakes.js"

afterEach(() => {
  vi.unstubAllGlobals()
})

describe("detectStorage", () => {
  it("on a server finds no storage and touches none", async () => {
    let touched = 0
    const trap = () => {
      touched++
      return new FakeWebStorage()
    }
    Object.defineProperty(globalThis, "localStorage", { get: trap, configurable: true })
    Object.defineProperty(globalThis, "sessionStorage", { get: trap, configurable: true })
    try {
      await expect(detectStorage()).resolves.toBeUndefined()
      expect(touched).toBe(0)
    } finally {
      Reflect.deleteProperty(globalThis, "localStorage")
      Reflect.deleteProperty(globalThis, "sessionStorage")
    }
  })

  it("in a browser page combines localStorage, sessionStorage and the cookie", async () => {
    const localStorage = new FakeWebStorage()
    const sessionStorage = new FakeWebStorage()
    const document = new FakeCookieDocument()
    vi.stubGlobal("window", {})
    vi.stubGlobal("document", document)
    vi.stubGlobal("localStorage", localStorage)
    vi.stubGlobal("sessionStorage", sessionStorage)
    const storage = await detectStorage()
    expect(isCombinedStorage(storage)).toBe(true)
    if (!isCombinedStorage(storage)) return
    expect(storage.stores).toHaveLength(3)
    document.cookie = "session_id=c"
    sessionStorage.setItem("sid", "s")
    await expect(findSessionId(storage)).resolves.toBe("s")
  })

  it("in a browser page where no storage can be reached finds none", async () => {
    vi.stubGlobal("window", {})
    vi.stubGlobal("document", {})
    await expect(detectStorage()).resolves.toBeUndefined()
  })

  it("in React Native without the AsyncStorage package finds none, and does not reject", async () => {
    vi.stubGlobal("navigator", { product: "ReactNative" })
    vi.stubGlobal("window", {})
    await expect(detectStorage()).resolves.toBeUndefined()
    await expect(loadAsyncStorage()).resolves.toBeUndefined()
  })
})

describe("loading AsyncStorage", () => {
  it("adapts the module's default export", async () => {
    const storage = fakeAsyncStorage()
    storage.entries.set("svc_session_id", "native-id")
    const adapter = await loadWith(async () => ({ default: storage }))
    expect(adapter).toBeDefined()
    if (adapter === undefined) return
    await expect(findSessionId(adapter)).resolves.toBe("native-id")
  })

  it("gives undefined when the import fails or gives something else", async () => {
    await expect(loadWith(() => Promise.reject(new Error("Cannot find module")))).resolves.toBe(
      undefined
    )
    await expect(loadWith(async () => ({ default: 42 }))).resolves.toBeUndefined()
    await expect(loadWith(async () => undefined)).resolves.toBeUndefined()
  })
})

describe("bundling for browsers (the #asyncStorage stub)", () => {
  const entry = fileURLToPath(new URL("../../src/Storage/index.ts", import.meta.url))

  it.each(["esm", "iife"] as const)(
    "esbuild bundles svc-sdk/Storage as %s without AsyncStorage installed",
    async (format) => {
      const result = await build({
        entryPoints: [entry],
        bundle: true,
        platform: "browser",
        conditions: ["svc-sdk-source"],
        format,
        write: false,
        logLevel: "silent"
      })
      expect(result.errors).toEqual([])
      expect(result.warnings).toEqual([])
      const code = result.outputFiles[0]?.text ?? ""
      // #asyncStorage is a stub outside React Native: nothing for a bundler to look for
      expect(code).not.toContain("@react-native-async-storage/async-storage")
      expect(code).not.toMatch(/from "node:|require\("node:/)
    }
  )
})

describe("bundling for React Native (the react-native condition of #asyncStorage)", () => {
  const entry = fileURLToPath(new URL("../../src/Storage/index.ts", import.meta.url))
  const standIn = `"use strict"
Object.defineProperty(exports, "__esModule", { value: true })
const entries = new Map([["sid", "from-async-storage"]])
exports.default = {
  getItem: async (key) => entries.get(key) ?? null,
  setItem: async (key, value) => { entries.set(key, value) },
  removeItem: async (key) => { entries.delete(key) }
}
`

  it("bundles AsyncStorage when it is installed, and detection uses it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "svc-storage-rn-"))
    try {
      const pkg = join(dir, "node_modules", "@react-native-async-storage", "async-storage")
      await mkdir(pkg, { recursive: true })
      await writeFile(
        join(pkg, "package.json"),
        '{"name":"@react-native-async-storage/async-storage","main":"index.js"}'
      )
      await writeFile(join(pkg, "index.js"), standIn)
      const outfile = join(dir, "storage.mjs")
      const result = await build({
        entryPoints: [entry],
        bundle: true,
        platform: "neutral",
        conditions: ["react-native", "svc-sdk-source"],
        mainFields: ["main"],
        format: "esm",
        outfile,
        nodePaths: [join(dir, "node_modules")],
        logLevel: "silent"
      })
      expect(result.errors).toEqual([])
      const code = await readFile(outfile, "utf8")
      expect(code).toContain("from-async-storage")
      expect(code).not.toContain('import("@react-native-async-storage/async-storage")')
      vi.stubGlobal("navigator", { product: "ReactNative" })
      const bundled = (await import(
        pathToFileURL(outfile).href
      )) as typeof import("../../src/Storage/index.js")
      const storage = await bundled.detectStorage()
      expect(storage).toBeDefined()
      if (storage === undefined) return
      await expect(bundled.findSessionId(storage)).resolves.toBe("from-async-storage")
      await bundled.saveSessionId(storage, "saved-natively")
      await expect(bundled.findSessionId(storage)).resolves.toBe("saved-natively")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
