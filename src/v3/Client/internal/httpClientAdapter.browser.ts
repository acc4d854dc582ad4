/**
 * The `HttpClient` adapter in browsers and React Native, imported statically: an app that never
 * uses `SvcClient.layer` tree-shakes it with the platform, where an `import()` would leave a chunk
 * whose shared code the page loads at once.
 */
import * as Effect from "effect/Effect"
import { fromHttpClient } from "./httpClientTransport.js"

export const loadAdapter: Effect.Effect<typeof fromHttpClient> = Effect.succeed(fromHttpClient)
