/**
 * The transport conformance suite over every transport that runs on Node: undici (the facade's
 * default, and `SvcClient.layerDefault`), fetch (`config.fetch`), and the `HttpClient` adapter over
 * `@effect/platform`'s undici and fetch clients. The browser's fetch runs the same cases in
 * `test/browser`; the Effect 4 line runs them in `test/v4`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Layer from "effect/Layer"
import { createSvc, SvcClient, type SvcConfig } from "../../src/v3/Client/index.js"
import { conformance, type Settings } from "./conformance/suite.js"
import { effectClient } from "./effectClient.js"

/** The facade, with the suite's settings as its config. */
const facade = (config: Settings = {}) => config as SvcConfig

conformance({
  name: "undici (Node's default)",
  make: (baseUrl, config) => createSvc(baseUrl, facade(config))
})
conformance({
  name: "SvcClient.layerDefault (the Effect API over the facade's transport)",
  make: effectClient(SvcClient.layerDefault)
})
conformance({
  name: "fetch on Node (config.fetch)",
  make: (baseUrl, config) => createSvc(baseUrl, { ...facade(config), fetch: globalThis.fetch })
})
conformance({
  name: "HttpClient adapter over NodeHttpClient.layerUndici",
  make: effectClient((baseUrl, config) =>
    SvcClient.layer(baseUrl, config).pipe(Layer.provide(NodeHttpClient.layerUndici))
  )
})
conformance({
  name: "HttpClient adapter over FetchHttpClient.layer",
  make: effectClient((baseUrl, config) =>
    SvcClient.layer(baseUrl, config).pipe(Layer.provide(FetchHttpClient.layer))
  )
})
