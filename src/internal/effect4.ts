/**
 * The first import of the Effect 4 entry points: with effect 3 installed, it throws an error that
 * names the mistake (import `svc-sdk/v3`). It imports only `effect/Context`, which both Effects
 * have. On Node's ES modules, where every import resolves before any code runs, the entry points
 * of dist/node import it before the rest (see scripts/build.mjs).
 *
 * @since 0.1.0
 */

import * as Context from "effect/Context"
import { requireEffect4 } from "../core/effectLine.js"

requireEffect4(Context)
