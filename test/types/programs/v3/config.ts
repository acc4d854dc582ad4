// The layerConfig example of the JSDoc and the README.
import * as Config from "effect/Config"
import { SvcClient } from "svc-sdk"

declare const maybeTimeout: number | undefined

export const Api = SvcClient.layerConfig(
  Config.all({
    baseUrl: Config.string("API_URL"),
    timeout: Config.integer("API_TIMEOUT_MS").pipe(Config.withDefault(10_000))
  })
)
export const Optional = SvcClient.layerConfig(
  Config.all({ baseUrl: Config.string("API_URL") }).pipe(
    Config.map((settings) => ({ ...settings, timeout: maybeTimeout, sessionId: undefined }))
  )
)
