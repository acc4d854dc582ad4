/** The client's conformance suite in workerd (see suite.ts), on both Effect lines. */
import { runtimeSuite } from "./suite.js"

runtimeSuite("workerd")
