/** `npm run demo` on the Effect 4 line (`examples/demo.ts`), with the same tests as on Effect 3. */
import { describeDemo } from "../../examples/demoSuite.js"

describeDemo(4)
