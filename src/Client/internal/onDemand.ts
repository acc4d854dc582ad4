/**
 * What the Effect layers load only when used, on Node, Bun and Deno (`#onDemand`): importing
 * svc-sdk loads neither the `HttpClient` adapter (nor `effect/http`) nor `effect/Config`.
 */
import type * as Config from "effect/Config"
import type { adapter } from "../../internal/httpClient.js"

/** The `HttpClient` adapter, for the first layer that sends through an `HttpClient`. */
export const loadAdapter = (): Promise<typeof adapter> =>
  import("../../internal/httpClient.js").then((module) => module.adapter)

/** A `ConfigError` for a setting the client refused, loading what it needs only then. */
export const loadConfigError = async (): Promise<(message: string) => Config.ConfigError> => {
  const [Config, Schema, SchemaIssue] = await Promise.all([
    import("effect/Config"),
    import("effect/Schema"),
    import("effect/SchemaIssue")
  ])
  return (message) =>
    new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message })))
}
