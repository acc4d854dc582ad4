/** `FetchHttpClient.layer` of the Effect 4 line, for the client bundled into the runtimes. */
import { FetchHttpClient } from "effect/http"

export const layer = FetchHttpClient.layer
