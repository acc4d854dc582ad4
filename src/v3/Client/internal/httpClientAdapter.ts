/**
 * The `HttpClient` adapter on Node, Bun and Deno, loaded by the first `SvcClient.layer` that needs
 * it: importing svc-sdk does not load `@effect/platform`.
 */
import type { adapter } from "../../internal/httpClient.js"

export const loadAdapter = (): Promise<typeof adapter> =>
  import("../../internal/httpClient.js").then((module) => module.adapter)
