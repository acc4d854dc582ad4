/**
 * `npm run demo` on the Effect 3 line (the Effect 4 line's run is test/v4/examples/demo.test.ts),
 * and how it picks the line when none is asked for.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { allowsEffect4, chooseLine } from "../../scripts/demo-line.mjs"
import { OTHER_VERSIONS } from "../../scripts/node-versions.mjs"
import { ANNOUNCED, describeDemo } from "./demoSuite.js"
import { npmRun, ROOT } from "./processes.js"

describeDemo(3)

const NODE_24 = { version: "24.21.0", path: "/cache/24/node" }
const NODE_22 = { version: "22.23.3", path: "/cache/22/node" }
const NODE_22_OLD = { version: "22.12.0", path: "/cache/22.12/node" }

describe("the line npm run demo picks", () => {
  it.each([
    ["24.21.0", true],
    ["v22.19.0", true],
    ["22.18.9", false],
    ["23.0.0", true],
    ["20.20.2", false],
    ["18.20.0", false]
  ] as const)("Node %s can run Effect 4: %s", (version, allowed) => {
    expect(allowsEffect4(version)).toBe(allowed)
  })

  it("runs Effect 4 on this Node when it can, whatever is cached", () => {
    expect(chooseLine({ requested: undefined, running: "22.19.0", cached: [] })).toEqual({
      line: 4,
      node: "running",
      why: ""
    })
    expect(chooseLine({ requested: "4", running: "24.1.0", cached: [NODE_22] }).node).toBe(
      "running"
    )
  })

  it("else on the newest cached Node that can, saying why", () => {
    const choice = chooseLine({
      requested: undefined,
      running: "20.20.2",
      cached: [NODE_22, NODE_24, NODE_22_OLD]
    })
    expect(choice).toEqual({
      line: 4,
      node: NODE_24,
      why: "from .cache/node: this shell's Node 20.20.2 is older than Effect 4's 22.19.0"
    })
  })

  it("else on the Effect 3 line, saying why and how to get Effect 4", () => {
    const choice = chooseLine({ requested: undefined, running: "20.20.2", cached: [NODE_22_OLD] })
    expect(choice).toEqual({
      line: 3,
      node: "running",
      why: "because Node 20.20.2 < 22.19.0, which Effect 4 needs"
    })
  })

  it("--line 4 with no Node that can run it fetches one; --line 3 runs Effect 3 anywhere", () => {
    const fetched = chooseLine({ requested: "4", running: "20.20.2", cached: [] })
    expect(fetched).toMatchObject({ line: 4, node: "fetch" })
    expect(chooseLine({ requested: "3", running: "24.21.0", cached: [NODE_24] })).toEqual({
      line: 3,
      node: "running",
      why: "as asked (--line 3)"
    })
    expect(() => chooseLine({ requested: "5", running: "24.21.0", cached: [] })).toThrow(
      '--line must be 3 or 4, got "5"'
    )
  })

  it("npm run demo, no line asked for: says which it runs, runs it, exits 0", async () => {
    const cached = OTHER_VERSIONS.filter((version) =>
      existsSync(join(ROOT, ".cache", "node", version, "package", "bin", "node"))
    ).filter(allowsEffect4)
    const { code, stdout } = await npmRun(["demo", "--", "--promise"])
    expect(code).toBe(0)
    if (allowsEffect4(process.versions.node)) {
      expect(ANNOUNCED[4].exec(stdout)?.[1]).toBe(process.versions.node)
    } else if (cached.length > 0) {
      expect(ANNOUNCED[4].exec(stdout)?.[1]).toBe(cached.at(-1))
      expect(stdout).toContain(`this shell's Node ${process.versions.node} is older`)
    } else {
      expect(ANNOUNCED[3].exec(stdout)?.[1]).toBe(process.versions.node)
      expect(stdout).toContain(`because Node ${process.versions.node} < 22.19.0`)
    }
    expect(stdout).toContain("Every step answered as expected.")
  }, 180_000)
})
