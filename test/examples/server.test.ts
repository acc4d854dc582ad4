/** The Effect 3 demo server (`examples/v3/server.ts`), on every Node the suite runs on. */
import { describeServer } from "./serverSuite.js"

describeServer(3)
