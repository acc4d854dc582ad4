/**
 * URL joining and query parameters.
 */

/** A value accepted in `options.params`. */
export type ParamValue = string | number | boolean | bigint | Date | null | undefined

/** `options.params`: arrays repeat the key, `null`/`undefined` are dropped. */
export type Params = Readonly<Record<string, ParamValue | ReadonlyArray<ParamValue>>>

const ABSOLUTE = /^[a-z][a-z\d+.-]*:/i

/**
 * Checks a base URL once, at construction: an absolute http(s) URL, read as the URL parser reads
 * it (whitespace around it left out). A message names it by its scheme at most: the rest may hold
 * a credential, or an API key in its query.
 */
export const parseBaseUrl = (baseUrl: unknown): URL => {
  if (typeof baseUrl !== "string") {
    throw new TypeError(`baseUrl must be a string, got ${typeof baseUrl}`)
  }
  const trimmed = baseUrl.trim()
  const problem = absoluteUrlProblem(trimmed)
  if (problem !== undefined) {
    // `localhost:3000` reads as a URL of scheme "localhost:"
    const hint = trimmed.includes("//") ? "" : ' (no "http://")'
    throw new TypeError(`baseUrl ${problem}${hint}`)
  }
  // endpoints are joined to it as written: `http://h/v1?key=k` + `/users` would be a query
  if (/[?#]/.test(trimmed)) {
    throw new TypeError(
      "baseUrl must not hold a query or a fragment: give query parameters per request (params)"
    )
  }
  return new URL(trimmed)
}

/** Whether `endpoint` is an absolute URL (it has a scheme), which `joinUrl` uses as it is. */
export const isAbsoluteUrl = (endpoint: string): boolean => ABSOLUTE.test(endpoint)

/**
 * `http://h/api/v1` + `/users` and `http://h/api/v1/` + `users` both give `http://h/api/v1/users`;
 * slashes where the two meet count once (`/foo//` + `//bar` is `/foo/bar`, as in ky), so an
 * endpoint never reaches another host. An endpoint that is only a query or fragment (`?a=1`) goes on
 * the base URL as it is (`http://h/api/` + `?a=1` is `http://h/api/?a=1`, as in ky). An absolute
 * endpoint URL is used as it is.
 */
export const joinUrl = (baseUrl: string, endpoint: string): string => {
  if (isAbsoluteUrl(endpoint)) return endpoint
  // the base URL itself, with this query or fragment: its path as it is, trailing slash and all
  if (endpoint === "" || endpoint.startsWith("?") || endpoint.startsWith("#")) {
    return baseUrl + endpoint
  }
  const base = baseUrl.endsWith("/") ? baseUrl.replace(/\/+$/, "") : baseUrl
  return `${base}/${endpoint.startsWith("/") ? endpoint.replace(/^\/+/, "") : endpoint}`
}

const paramText = (value: Exclude<ParamValue, null | undefined>): string =>
  value instanceof Date ? value.toISOString() : String(value)

/** `a=1&b=x&b=y`: arrays repeat the key, `null`/`undefined` are dropped, dates are ISO strings. */
export const encodeParams = (params: Params): string => {
  const search = new URLSearchParams()
  for (const key of Object.keys(params)) {
    const value = params[key]
    const values: ReadonlyArray<ParamValue> = Array.isArray(value) ? value : [value as ParamValue]
    for (const item of values) {
      if (item !== null && item !== undefined) search.append(key, paramText(item))
    }
  }
  return search.toString()
}

/** Appends encoded params with `?`, or `&` when the URL already has a query, before any `#`. */
export const appendParams = (url: string, params: Params | undefined): string => {
  if (params === undefined) return url
  const query = encodeParams(params)
  if (query === "") return url
  const hashAt = url.indexOf("#")
  const path = hashAt === -1 ? url : url.slice(0, hashAt)
  const hash = hashAt === -1 ? "" : url.slice(hashAt)
  const separator = path.includes("?") ? (path.endsWith("?") || path.endsWith("&") ? "" : "&") : "?"
  return path + separator + query + hash
}

/** Whether `url` is on the given origin; unparsable URLs are not. */
export const isSameOrigin = (url: string, origin: string): boolean => {
  try {
    return new URL(url).origin === origin
  } catch {
    return false
  }
}

/** `url` without its query string, fragment and user info: what a message may name. */
export const urlForMessage = (url: string): string => {
  if (!URL.canParse(url)) return url.replace(/[?#].*$/s, "").replace(/\/\/[^/@]*@/, "//")
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

/**
 * What keeps `url` from being sent: not an absolute URL, a scheme other than http(s) (named, never
 * the rest of the URL, which may be secret), or an http(s) URL that does not parse. `undefined`
 * when it can be sent.
 */
export const absoluteUrlProblem = (url: string): string | undefined => {
  const scheme = ABSOLUTE.exec(url)?.[0].toLowerCase()
  if (scheme === undefined) return "must be an absolute http: or https: URL"
  if (scheme !== "http:" && scheme !== "https:") {
    return `must be an http: or https: URL, got a "${scheme}" URL`
  }
  if (!URL.canParse(url)) return "is not a valid URL"
  return hasUserInfo(new URL(url)) ? USER_INFO.slice("baseUrl ".length) : undefined
}

/**
 * A URL with user info (`user:password@`) is refused: fetch refuses it, undici would drop it
 * silently, and it would carry a credential into every message that names the URL.
 */
const hasUserInfo = (url: URL): boolean => url.username !== "" || url.password !== ""

const USER_INFO =
  "baseUrl must not hold user info (user:password@): send credentials in an Authorization header"

/** `text` with every URL in it cut to what a message may name ({@link urlForMessage}). */
export const redactUrls = (text: string): string =>
  text.replace(/\b[a-z][a-z\d+.-]*:\/\/[^\s"'<>()]+/gi, urlForMessage)

/**
 * A transport's error (a failure's `cause`), every URL its texts quote cut as {@link redactUrls}
 * does, its causes' too: Bun's fetch error names the URL it failed in its `path`, query and
 * fragment included, and a query may hold a token. The error stays the one the transport gave (its
 * class, code and message).
 */
export const redactUrlsIn = (cause: unknown, depth = 0): unknown => {
  if (typeof cause !== "object" || cause === null || depth > 3) return cause
  for (const key of new Set([...Object.keys(cause), "message", "stack"])) {
    const value: unknown = Reflect.get(cause, key)
    if (typeof value === "string") {
      const redacted = redactUrls(value)
      if (redacted !== value) Reflect.set(cause, key, redacted)
    }
  }
  redactUrlsIn(Reflect.get(cause, "cause"), depth + 1)
  return cause
}

/** Like {@link absoluteUrlProblem}, for an endpoint, which may also be a path. */
export const endpointProblem = (endpoint: string): string | undefined =>
  ABSOLUTE.test(endpoint) ? absoluteUrlProblem(endpoint) : undefined
