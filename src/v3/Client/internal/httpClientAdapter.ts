/**
 * The `HttpClient` adapter on Node, Bun and Deno, loaded by the first `SvcClient.layer` that needs
 * it: importing svc-sdk does not load `@effect/platform`.
 */
import type { adapter } from "../../internal/httpClient.js"

/** The Effect API's `Stream`s of `stream` and `sse`, loaded by the layers. */
export const loadEffectStreams = () => import("../../../common/effectStreams.js")

export const loadAdapter = (): Promise<typeof adapter> =>
  import("../../internal/httpClient.js").then((module) => module.adapter)
