/** The Effect 4 demo server (`examples/server.ts`), with the same tests as the Effect 3 one. */
import { describeServer } from "../../examples/serverSuite.js"

describeServer(4)
