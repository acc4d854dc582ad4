/**
 * The cross-site check of SPEC 6.3a, after Go's `net/http.CrossOriginProtection`: a request whose
 * session id a browser attaches by itself (cookie, query parameter) may change state only when it
 * comes from the same site.
 */
export interface CrossSiteSettings {
  /** `false`: the check is off. */
  readonly enabled: boolean
  /** Serialised origins (`https://app.example.com`) always allowed. */
  readonly trustedOrigins: ReadonlySet<string>
}

/** What the server-side rules read of a request, on either Effect line's server. */
export interface ServerRequestHead {
  readonly method: string
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string | undefined>>
}

/** Methods that must not change state, so a cross-site one does no harm. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

/** `Sec-Fetch-Site` values of a request the user's own page or the user made. */
const SAME_SITE_FETCH: ReadonlySet<string> = new Set(["same-origin", "none"])

/** Whether a request carrying an ambient session id may go on to the validator. */
export const isSameSiteRequest = (
  request: ServerRequestHead,
  settings: CrossSiteSettings
): boolean => {
  if (!settings.enabled || SAFE_METHODS.has(request.method)) return true
  const origin = request.headers.origin
  if (origin !== undefined && settings.trustedOrigins.has(origin.toLowerCase())) return true
  const fetchSite = request.headers["sec-fetch-site"]
  if (fetchSite !== undefined) return SAME_SITE_FETCH.has(fetchSite.toLowerCase())
  // neither header: not a browser, which is what cross-site forgery needs
  if (origin === undefined) return true
  const host = request.headers.host
  return host !== undefined && hostOf(origin) === host.toLowerCase()
}

/** The `host[:port]` of an `Origin` value; `undefined` for `null` and other opaque origins. */
const hostOf = (origin: string): string | undefined => {
  if (!URL.canParse(origin)) return undefined
  const url = new URL(origin)
  return url.protocol === "http:" || url.protocol === "https:" ? url.host : undefined
}

/** Checks `trustedOrigins` once, when the guard is made, and serialises each one. */
export const trustedOriginsOption = (
  name: string,
  value: ReadonlyArray<string> | undefined
): ReadonlySet<string> => {
  if (value === undefined) return new Set()
  if (!Array.isArray(value)) {
    throw new TypeError(`${name} must be an array of origins such as "https://app.example.com"`)
  }
  return new Set(
    value.map((origin: unknown) => {
      const url = typeof origin === "string" && URL.canParse(origin) ? new URL(origin) : undefined
      if (
        url === undefined ||
        (url.protocol !== "http:" && url.protocol !== "https:") ||
        url.pathname !== "/" ||
        url.search !== "" ||
        url.hash !== "" ||
        url.username !== "" ||
        url.password !== ""
      ) {
        throw new TypeError(
          `${name} must hold origins (scheme://host[:port], no path), got ${JSON.stringify(origin)}`
        )
      }
      return url.origin
    })
  )
}
