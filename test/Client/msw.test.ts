/**
 * msw 3, the current major (`msw`): the facade's requests on Node reach its handlers. msw 3 runs
 * on Node ≥ 22.12 only (its engines; on Node 20 its socket interception itself fails), so on Node
 * 20 the suite is skipped, saying so. msw 2 runs on every Node (msw2.test.ts).
 */
import { describe } from "vitest"
import { type MswModules, mswSuite } from "./mswSuite.js"

const [major = 0, minor = 0] = process.versions.node.split(".").map(Number)
const msw3Runs = major > 22 || (major === 22 && minor >= 12)

describe.skipIf(!msw3Runs)("msw 3 (needs Node ≥ 22.12)", () =>
  mswSuite(
    "msw 3 intercepts the facade on Node",
    async (): Promise<MswModules> => ({
      ...(await import("msw")),
      ...(await import("msw/node")),
      strict: { onUnhandledFrame: "error" }
    })
  )
)
