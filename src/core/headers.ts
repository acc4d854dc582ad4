/**
 * Header records with case-insensitive names: names are kept in lower case.
 */

/** Header names in lower case, values as strings. */
export type HeaderRecord = Record<string, string>

/** Headers that carry credentials: they only ever go to the base URL's origin. */
export const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"] as const

/**
 * Copies `source` into `target` with lower-cased names, later values winning; a header whose value
 * is `undefined` or `null` is left out.
 */
export const assignHeaders = (
  target: HeaderRecord,
  source: Readonly<Record<string, string | null | undefined>> | undefined
): HeaderRecord => {
  if (source === undefined) return target
  for (const name of Object.keys(source)) {
    const value = source[name]
    if (value !== undefined && value !== null) target[name.toLowerCase()] = String(value)
  }
  return target
}

/** Whether `headers` has `name`, whatever its case. */
export const hasHeader = (headers: Readonly<Record<string, string>>, name: string): boolean => {
  const lower = name.toLowerCase()
  for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) return true
  return false
}

/** The value of `name`, whatever its case. */
export const getHeader = (
  headers: Readonly<Record<string, string>>,
  name: string
): string | undefined => {
  const lower = name.toLowerCase()
  for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) return headers[key]
  return undefined
}

/**
 * What a header value may hold: tab, visible ASCII and space, and U+0080 to U+00FF (one byte each),
 * as HTTP's field values and undici take them. Anything else (a control character, a character past
 * U+00FF) cannot be sent, on any runtime.
 */
const UNSENDABLE_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/

/**
 * Checks a header name and value given to `setHeader` or `config.headers`. `__proto__` is a token,
 * but no record can hold it as a name (assigning it sets the prototype): it would go unsent.
 */
export const checkHeader = (name: unknown, value: unknown): void => {
  if (typeof name !== "string" || !/^(?!__proto__$)[!#$%&'*+\-.^_`|~\w]+$/i.test(name)) {
    throw new TypeError(
      `header name must be an HTTP token other than __proto__, got ${JSON.stringify(name)}`
    )
  }
  if (typeof value !== "string") {
    throw new TypeError(`header value for ${name} must be a string, got ${typeof value}`)
  }
  // the value stays out of the message: it may be a credential
  if (UNSENDABLE_HEADER_VALUE.test(value)) {
    throw new TypeError(
      `header value for ${name} must not contain control characters (tab aside) or characters past U+00FF`
    )
  }
}
