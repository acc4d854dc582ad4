/**
 * Every relative link of the documentation (README.md and docs/*.md) leads somewhere: to a file or
 * folder of this repository and, with a `#fragment`, to a heading of that Markdown file, by the
 * anchors GitHub gives headings. Links inside code blocks and code spans are not links.
 */
import { existsSync } from "node:fs"
import { dirname, join, normalize } from "node:path"
import { describe, expect, it } from "vitest"
import { documents, documentText, ROOT } from "./readmeBlocks.js"

/** The text outside fenced code blocks and code spans. */
const prose = (markdown: string): string =>
  markdown.replace(/^```[\s\S]*?^```[ \t]*$/gm, "").replace(/`[^`\n]*`/g, "")

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-")

/** The anchors of a Markdown file's headings, the second of a name suffixed `-1` as on GitHub. */
const anchorsOf = (markdown: string): Set<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const [, text] of markdown
    .replace(/^```[\s\S]*?^```[ \t]*$/gm, "")
    .matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm)) {
    const base = slug(text!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** The relative links of a Markdown file: `[text](target)`, absolute URLs left out. */
const linksOf = (markdown: string): Array<string> =>
  [...prose(markdown).matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target))

describe("the documentation's relative links", () => {
  it("finds the guides", () => {
    expect(documents()).toEqual(
      expect.arrayContaining(["README.md", "docs/client.md", "docs/auth.md", "docs/effect3.md"])
    )
  })

  it.each(documents())("%s: every relative link and anchor exists", (file) => {
    const broken: Array<string> = []
    const links = linksOf(documentText(file))
    for (const link of links) {
      const [path = "", fragment] = link.split("#")
      const target = path === "" ? file : normalize(join(dirname(file), path))
      if (target.startsWith("..") || !existsSync(join(ROOT, target))) {
        broken.push(`${link}: no file ${target}`)
        continue
      }
      if (fragment !== undefined && target.endsWith(".md")) {
        const anchors = anchorsOf(documentText(target))
        if (!anchors.has(decodeURIComponent(fragment))) {
          broken.push(`${link}: no heading #${fragment} in ${target}`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it("reads links, anchors and headings as GitHub does", () => {
    expect(linksOf("[a](docs/x.md#y) `[b](c.md)` [d](https://e.example) [f](#g)")).toEqual([
      "docs/x.md#y",
      "#g"
    ])
    expect([
      ...anchorsOf("# On Effect 3?\n## Auth guards for `effect/http` servers\n## Fix\n## Fix")
    ]).toEqual(["on-effect-3", "auth-guards-for-effecthttp-servers", "fix", "fix-1"])
  })
})
