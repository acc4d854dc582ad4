/**
 * The construction-time errors (test/Auth/shared/construction.ts) on the Effect 4 line.
 */
import * as Auth from "../../../src/Auth/index.js"
import { construction } from "../../Auth/shared/construction.js"

construction("Effect 4", Auth)
