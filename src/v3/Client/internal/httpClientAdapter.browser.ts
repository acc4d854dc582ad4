/**
 * The `HttpClient` adapter in browsers and React Native, imported statically: an app that never
 * uses `SvcClient.layer` tree-shakes it with the platform, where an `import()` would leave a chunk
 * whose shared code the page loads at once.
 */
import { adapter } from "../../internal/httpClient.js"

export const loadAdapter = (): Promise<typeof adapter> => Promise.resolve(adapter)
