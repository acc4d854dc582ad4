/**
 * The transport conformance suite (test/Client/conformance) in one runtime besides Node, on both
 * Effect lines, over each client a user there has: the facade (the fetch transport), and the
 * Effect API over `SvcClient.layerDefault` and over `SvcClient.layer` with `FetchHttpClient`.
 * The suite's servers run here in Node, on loopback; the client runs in the runtime.
 */
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { supported } from "../../scripts/node-versions.mjs"
import type { Runtime } from "../../scripts/runtimes.mjs"
import { conformance } from "../Client/conformance/suite.js"
import {
  bundleClient,
  RUNTIME_LINES,
  type RunningClient,
  remoteTransport,
  startClient
} from "./harness.js"
import { APIS } from "./wire.js"

const SCRATCH = fileURLToPath(new URL("../../.tmp/runtimes/", import.meta.url))

/** What a runtime's fetch does its own way, that the suite expects of it. */
export interface RuntimeTraits {
  /** The reason phrase its fetch reports for a 418 that came without one (see suite.ts). */
  readonly reasonOf418?: string
}

export const runtimeSuite = (runtime: Runtime, traits: RuntimeTraits = {}): void => {
  if (!supported)
    console.warn(`Skipping the ${runtime} suite: no ${runtime} build for this platform.`)
  for (const line of RUNTIME_LINES) {
    describe.skipIf(!supported)(`${runtime}, Effect ${line}`, () => {
      let running: RunningClient
      beforeAll(async () => {
        const script = await bundleClient(runtime, line)
        running = await startClient(runtime, script, join(SCRATCH, `${runtime}-effect${line}`))
        // the binary is fetched once (npm test does it before the runs): a first run may wait
      }, 180_000)
      afterAll(async () => {
        // nothing the runtime logged holds a session id the suite used
        expect(running?.stderr() ?? "").not.toMatch(/secret-session/)
        await running?.stop()
      })
      for (const api of APIS) {
        const transport = remoteTransport(`${runtime}, Effect ${line}, ${api}`, () => running, api)
        // an Effect HttpClient gives no status text: the client's standard phrase
        conformance(api === "layer(FetchHttpClient)" ? transport : { ...transport, ...traits })
      }
    })
  }
}
