/**
 * The `HttpClient` adapter in browsers and React Native, imported statically: an app that never
 * uses `SvcClient.layer` tree-shakes it with the platform, where an `import()` would leave a chunk
 * whose shared code the page loads at once.
 */
import * as effectStreams from "../../../common/effectStreams.js"
import { adapter } from "../../internal/httpClient.js"

/** The Effect API's `Stream`s of `stream` and `sse` (a facade's bundle drops them). */
export const loadEffectStreams = () => Promise.resolve(effectStreams)

export const loadAdapter = (): Promise<typeof adapter> => Promise.resolve(adapter)
