/**
 * The session-id rule, the same on the client and the server, and where a guard finds the session
 * id of a request (SPEC 6.2), on either Effect line's server.
 */
import type { ServerRequestHead } from "./crossSite.js"

/**
 * The longest session id accepted from storage.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_SESSION_ID_LENGTH = 512

const SESSION_ID = /^[\x21-\x7e]{1,512}$/

/**
 * 1 to 512 visible ASCII characters (0x21–0x7E): no whitespace, no C0 or C1 control characters, no
 * DEL, nothing outside ASCII. The same rule as the server's guards.
 *
 * @since 0.1.0
 * @category guards
 */
export const isValidSessionId = (value: unknown): value is string =>
  typeof value === "string" && SESSION_ID.test(value)

/** Where a guard looks for the session id; `false` switches a place off. */
export interface SessionIdSource {
  /** Lower-cased header name. */
  readonly header: string | false
  readonly cookie: string | false
  readonly query: string | false
}

export type SessionIdReading =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Malformed" }
  | {
      readonly _tag: "Found"
      /** 1–512 visible ASCII characters; the binding wraps it in `Redacted` at once. */
      readonly id: string
      /** Whether a browser could have sent it cross-site on its own (cookie, query parameter). */
      readonly ambient: boolean
    }

const missing: SessionIdReading = { _tag: "Missing" }
const malformed: SessionIdReading = { _tag: "Malformed" }

const found = (raw: string, ambient: boolean): SessionIdReading =>
  isValidSessionId(raw) ? { _tag: "Found", id: raw, ambient } : malformed

/**
 * The first non-empty value of header, cookie, query parameter. A value that is not 1–512 visible
 * ASCII characters is `Malformed`.
 */
export const readSessionId = (
  request: ServerRequestHead & {
    readonly cookies: Readonly<Record<string, string | undefined>>
    readonly url: string
  },
  source: SessionIdSource
): SessionIdReading => {
  const header = source.header === false ? undefined : nonEmpty(request.headers[source.header])
  if (header !== undefined) return found(header, false)
  const cookie = source.cookie === false ? undefined : nonEmpty(request.cookies[source.cookie])
  if (cookie !== undefined) return found(cookie, true)
  const query =
    source.query === false ? undefined : nonEmpty(queryParameter(request.url, source.query))
  return query === undefined ? missing : found(query, true)
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value.length === 0 ? undefined : value

const queryParameter = (url: string, name: string): string | undefined => {
  const start = url.indexOf("?")
  if (start === -1) return undefined
  const end = url.indexOf("#", start)
  const search = url.slice(start + 1, end === -1 ? undefined : end)
  return new URLSearchParams(search).get(name) ?? undefined
}
