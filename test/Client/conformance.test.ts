/**
 * The transport conformance suite over every transport that runs on Node: undici (the facade's
 * default, and `SvcClient.layerDefault`), fetch (`config.fetch`), and the `HttpClient` adapter over
 * `@effect/platform`'s undici and fetch clients. The browser's fetch runs the same cases in
 * `test/browser`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Layer from "effect/Layer"
import { createSvc, SvcClient } from "../../src/Client/index.js"
import { conformance, effectClient } from "./conformance/suite.js"

conformance({ name: "undici (Node's default)", make: createSvc })
conformance({
  name: "SvcClient.layerDefault (the Effect API over the facade's transport)",
  make: effectClient(SvcClient.layerDefault)
})
conformance({
  name: "fetch on Node (config.fetch)",
  make: (baseUrl, config) => createSvc(baseUrl, { ...config, fetch: globalThis.fetch })
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
