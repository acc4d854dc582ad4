/** The client's conformance suite in bun (see suite.ts), on both Effect lines. */
import { runtimeSuite } from "./suite.js"

runtimeSuite("bun")
