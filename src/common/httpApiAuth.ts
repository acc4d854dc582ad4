/**
 * What the `HttpApiAuth` middleware of both lines read of their security schemes: which places
 * (header, cookie, query) a middleware's schemes name, and the guard settings that follow.
 */
import type { GuardOptionsOf, GuardSettings } from "../core/authOptions.js"
import { schemePlaces } from "../core/authRules.js"
import { DEFAULT_SESSION_HEADER } from "../core/http.js"

type Place = "header" | "cookie" | "query"

/**
 * Where the session id is read (SPEC 6.2): the names, and `false` to leave the cookie or the query
 * parameter out. They are the security schemes of the OpenAPI document too.
 *
 * @since 0.1.0
 * @category models
 */
export interface SchemeOptions {
  /** @default "X-Session-Id" */
  readonly header?: string | undefined
  /** @default "session_id" */
  readonly cookie?: string | false | undefined
  /** @default "session_id" */
  readonly query?: string | false | undefined
}

/** Where a `RequireUserType` / `RequirePermission` tag keeps its check. */
export const CheckKey: unique symbol = Symbol.for("svc-sdk/Auth/HttpApiAuth/Check")

/** A security scheme as the middleware read it: an API key in a place. */
interface ApiKeyScheme {
  readonly key: string
  readonly in: Place
}

/** The settings of a guard named `guard`, for these options (bad options throw). */
type SettingsOf = (guard: string, options: GuardOptionsOf<unknown> | undefined) => GuardSettings

/**
 * One API-key scheme per place the options name (`header.X-Session-Id`, `cookie.session_id`,
 * `query.session_id`), in the order they are tried, each made by the line's `apiKey`.
 */
export const schemesOf = <Scheme>(
  settingsOf: SettingsOf,
  apiKey: (scheme: ApiKeyScheme) => Scheme,
  options: SchemeOptions | undefined
): Readonly<Record<string, Scheme>> => {
  const settings = settingsOf("HttpApiAuth.Tag", options)
  const schemes: Record<string, Scheme> = {}
  for (const [place, key] of schemePlaces(settings, options?.header ?? DEFAULT_SESSION_HEADER)) {
    schemes[`${place}.${key}`] = apiKey({ key, in: place })
  }
  return schemes
}

/** The name read in `place`, or `false` when the middleware has no scheme there. */
const keyIn = (schemes: Readonly<Record<string, ApiKeyScheme>>, place: Place): string | false =>
  Object.values(schemes).find((scheme) => scheme.in === place)?.key ?? false

/**
 * The settings of `HttpApiAuth.layer` over a middleware's schemes: its sources are the schemes'
 * (a middleware without a header scheme reads no header).
 */
export const schemeSettings = (
  settingsOf: SettingsOf,
  security: Readonly<Record<string, ApiKeyScheme>>,
  options: GuardOptionsOf<unknown> | undefined
): GuardSettings => {
  const header = keyIn(security, "header")
  const settings = settingsOf("HttpApiAuth.layer", {
    ...options,
    cookie: keyIn(security, "cookie"),
    query: keyIn(security, "query")
  })
  return {
    ...settings,
    source: { ...settings.source, header: header === false ? header : header.toLowerCase() }
  }
}
