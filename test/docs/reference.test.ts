/**
 * The API reference (`npm run docs`, scripts/docs.mjs) builds from the JSDoc of both lines' public
 * entry points with TypeDoc, warnings counted as errors: no broken `{@link}`, no public type that
 * refers to one the reference leaves out but those typedoc.json lists. The reference has a page
 * for the main names of each line, and a config's page shows its options with their docs.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ROOT } from "./readmeBlocks.js"

/** A generated page's text, without its markup. */
const textOf = (page: string): string =>
  readFileSync(page, "utf8")
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")

describe("the API reference", () => {
  let out = ""
  let run: { readonly code: number; readonly output: string }

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "svc-sdk-api-"))
    run = await new Promise((done) =>
      execFile(
        process.execPath,
        [join(ROOT, "scripts/docs.mjs"), "--out", out],
        { cwd: ROOT },
        (error, stdout, stderr) =>
          done({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr })
      )
    )
  }, 300_000)

  afterAll(() => {
    if (out !== "") rmSync(out, { recursive: true, force: true })
  })

  it("builds both lines without a warning", () => {
    expect(run.output).not.toMatch(/warning|error/i)
    expect(run.code).toBe(0)
  })

  it.each([
    ["Effect 4", "", "svc-sdk", "svc-sdk_Auth", "svc-sdk_Client"],
    ["Effect 3", "v3", "svc-sdk_v3", "svc-sdk_v3_Auth", "svc-sdk_v3_Client"]
  ])("has the %s line's pages", (_line, folder, main, auth, client) => {
    const dir = join(out, folder)
    const pages = [
      "index.html",
      `modules/${main}.html`,
      `modules/${auth}.html`,
      `modules/${client}.html`,
      "modules/svc-sdk_Query.html",
      "modules/svc-sdk_Storage.html",
      `functions/${main}.createSvc.html`,
      `classes/${main}.SvcClient.html`,
      `interfaces/${main}.SvcClientService.html`,
      `classes/${main}.QueryBuilder.html`,
      `variables/${auth}.requireAuth.html`,
      `functions/${auth}.AuthMiddleware.requireAuth.html`,
      `classes/${auth}.SessionValidator.html`,
      `classes/${auth}.SessionStore.html`,
      `modules/${auth}.HttpApiAuth.html`
    ]
    expect(pages.filter((page) => !existsSync(join(dir, page)))).toEqual([])
    // a page carries its JSDoc: the summary, the tags and the example, on its line's import
    const createSvc = textOf(join(dir, `functions/${main}.createSvc.html`))
    expect(createSvc).toContain("The Promise facade")
    expect(createSvc).toContain("Since 0.1.0")
    const svcClient = textOf(join(dir, `classes/${main}.SvcClient.html`))
    expect(svcClient).toContain("Example")
    expect(svcClient).toContain(`import { createSvc } from "${main.replace("_", "/")}"`)
    // the config's options, inherited from the shared declaration, each with its doc
    const config = textOf(join(dir, `interfaces/${main}.SvcConfig.html`))
    for (const option of ["timeout", "totalTimeout", "retryAttempts", "refreshSession"]) {
      expect(config).toContain(option)
    }
    expect(config).toContain("Retry-After")
  })
})
