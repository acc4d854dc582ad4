/**
 * URL joining and query parameters.
 */

/** A value accepted in `options.params`. */
export type ParamValue = string | number | boolean | bigint | Date | null | undefined

/** `options.params`: arrays repeat the key, `null`/`undefined` are dropped. */
export type Params = Readonly<Record<string, ParamValue | ReadonlyArray<ParamValue>>>

const ABSOLUTE = /^[a-z][a-z\d+.-]*:/i

/** Checks a base URL once, at construction: it must be an absolute http(s) URL. */
export const parseBaseUrl = (baseUrl: unknown): URL => {
  if (typeof baseUrl !== "string") {
    throw new TypeError(`baseUrl must be a string, got ${typeof baseUrl}`)
  }
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new TypeError(
      `baseUrl must be an absolute http: or https: URL, got ${JSON.stringify(baseUrl)}`
    )
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(
      `baseUrl must be an absolute http: or https: URL, got ${JSON.stringify(baseUrl)}`
    )
  }
  return url
}

/**
 * `http://h/api/v1` + `/users` and `http://h/api/v1/` + `users` both give `http://h/api/v1/users`;
 * slashes where the two meet count once (`/foo//` + `//bar` is `/foo/bar`, as in ky), so an
 * endpoint never reaches another host. An absolute endpoint URL is used as it is.
 */
export const joinUrl = (baseUrl: string, endpoint: string): string => {
  if (ABSOLUTE.test(endpoint)) return endpoint
  if (endpoint === "") return baseUrl
  const base = baseUrl.endsWith("/") ? baseUrl.replace(/\/+$/, "") : baseUrl
  if (endpoint.startsWith("?") || endpoint.startsWith("#")) return base + endpoint
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
