/**
 * What the server half's shared code reads of a request, a session and the client, on both lines.
 */
import type * as Effect from "effect/Effect"
import type { ServerRequestHead } from "../core/crossSite.js"

/** A request as the guards read it: its head, cookies and URL. */
export type RequestOf = ServerRequestHead & {
  readonly cookies: Readonly<Record<string, string | undefined>>
  readonly url: string
  /** The server's own request, the same under every view of it (a mounted router's). */
  readonly source: unknown
}

export type { Decoded } from "../core/authRules.js"

/** The answer of the svc-sdk client to a `GET`, or its failure, as the HTTP validator reads them. */
export interface ClientGet {
  readonly get: (
    endpoint: string,
    options: { readonly headers: Record<string, string>; readonly responseType: "text" }
  ) => Effect.Effect<
    { readonly status: number; readonly data: unknown },
    { readonly _tag: string; readonly message: string; readonly status?: number }
  >
}
