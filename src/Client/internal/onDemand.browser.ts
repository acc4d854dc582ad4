/**
 * `#onDemand` in browsers and React Native: the same modules, imported statically. An app that never
 * uses `SvcClient.layer` or `layerConfig` tree-shakes them, where an `import()` would leave a chunk
 * whose share of Effect's own code the page loads at once.
 */
import * as Config from "effect/Config"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { adapter } from "../../internal/httpClient.js"

export const loadAdapter = (): Promise<typeof adapter> => Promise.resolve(adapter)

export const loadConfigError = (): Promise<(message: string) => Config.ConfigError> =>
  Promise.resolve(
    (message) =>
      new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message })))
  )
