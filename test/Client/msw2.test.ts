/**
 * msw 2 (the `msw2` alias of `msw@^2.15`), still widely installed: the facade's requests on Node
 * reach its handlers, as with msw 3 (msw.test.ts).
 */
import { type MswModules, mswSuite } from "./mswSuite.js"

mswSuite(
  "msw 2 intercepts the facade on Node",
  async (): Promise<MswModules> => ({
    ...(await import("msw2")),
    ...(await import("msw2/node")),
    strict: { onUnhandledRequest: "error" }
  })
)
