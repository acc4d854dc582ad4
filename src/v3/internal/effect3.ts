/**
 * The first import of the Effect 3 entry points: with effect 4 installed, it throws an error that
 * names the mistake (import `svc-sdk`). It imports only `effect/Context`, which both Effects have.
 * On Node's ES modules, where every import resolves before any code runs, the entry points of
 * dist/node import it before the rest (see scripts/build.mjs); browser bundles leave it out, as
 * their build fails on the missing module first.
 *
 * @since 0.1.0
 */

import * as Context from "effect/Context"
import { requireEffect3 } from "../../core/effectLine.js"

requireEffect3(Context)
