import * as Effect from "effect/Effect"
import type { HttpClient } from "effect/http"
import * as shared from "../../common/httpValidator.js"
import {
  httpSettings as checkHttpOptions,
  type HttpValidatorSettings
} from "../../core/authService.js"
import type { HttpValidatorOptions, SessionValidatorService } from "../SessionValidator.js"
import { line } from "./line.js"

/** Every default in one place; bad options throw here, where `http` is called. */
export const httpSettings = (options: HttpValidatorOptions): HttpValidatorSettings =>
  checkHttpOptions(line.durationMillis, options)

/**
 * `GET <url>` with the id in the session header, through the svc-sdk client
 * (`common/httpValidator.ts`). The client is loaded when the layer is built: importing
 * `svc-sdk/Auth` does not load it.
 */
export const http = (
  settings: HttpValidatorSettings
): Effect.Effect<SessionValidatorService, never, HttpClient.HttpClient> =>
  shared.http(
    line,
    settings,
    Effect.flatMap(
      Effect.promise(() => import("../../Client/SvcClient.js")),
      ({ SvcClient }) => SvcClient.make(settings.url, shared.clientConfig(settings))
    )
  )
