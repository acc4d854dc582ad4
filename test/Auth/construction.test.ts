/**
 * The construction-time errors (test/Auth/shared/construction.ts) on the Effect 3 line.
 */
import * as Auth from "../../src/v3/Auth/index.js"
import { construction } from "./shared/construction.js"

construction("Effect 3", Auth)
