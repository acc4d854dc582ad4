/** The client's conformance suite in Deno (see suite.ts), on both Effect lines. */
import { runtimeSuite } from "./suite.js"

// Deno's fetch reports hyper's reason phrase for a status, never the status line's
runtimeSuite("deno", { reasonOf418: "I'm a teapot" })
