/**
 * The session cookie a server sets at login and clears at logout (SPEC 6.6), the same on both
 * Effect lines: its options, checked when the cookie is made, and its attributes. The line sets
 * them on its response with its own cookie API.
 */
import { type DurationMillis, positiveDurationOption, TOKEN } from "./authOptions.js"
import { describe } from "./describe.js"
import { isValidSessionId } from "./sessionId.js"

/**
 * Options of `setSessionCookie` and `clearSessionCookie`; `Duration` is the line's `Duration`
 * input. The cookie is always `HttpOnly` (no script of the page reads it).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionCookieOptionsOf<Duration> {
  /**
   * The cookie's name: the guards' `cookie` option, when that is not the default.
   * @default "session_id"
   */
  readonly name?: string | undefined
  /**
   * Sent over HTTPS only. Turn it off for plain-HTTP development only: a browser drops a
   * `SameSite=None` cookie that is not `Secure`, so `sameSite: "none"` with `secure: false` throws.
   * @default true
   */
  readonly secure?: boolean | undefined
  /**
   * Whether the browser sends the cookie with requests from other sites: `"lax"` with top-level
   * navigations only, `"strict"` never, `"none"` always (then `secure` must be on).
   * @default "lax"
   */
  readonly sameSite?: "lax" | "strict" | "none" | undefined
  /** @default "/" */
  readonly path?: string | undefined
  /** Share the cookie with subdomains of this domain. None (this host only) when omitted. */
  readonly domain?: string | undefined
  /**
   * "Remember me": the cookie outlives the browser session, for `true` 30 days or for this
   * duration (`Max-Age`), at most 400 days: browsers keep no cookie longer (RFC 6265bis). Without
   * it, the cookie ends when the browser session does.
   * @default false
   */
  readonly persistent?: boolean | Duration | undefined
}

/** The cookie's attributes, checked: what the line's cookie API is given. */
export interface SessionCookie {
  readonly name: string
  readonly options: {
    readonly httpOnly: true
    readonly secure: boolean
    readonly sameSite: "lax" | "strict" | "none"
    readonly path: string
    readonly domain?: string
    /** `Max-Age`, as a duration input both lines read (`"<n> seconds"`). */
    readonly maxAge?: `${number} seconds`
    readonly expires?: Date
  }
}

const THIRTY_DAYS_SECONDS = 30 * 24 * 60 * 60

/** The longest `Max-Age` a browser keeps (RFC 6265bis caps it so): 400 days. */
const MAX_AGE_LIMIT_SECONDS = 400 * 24 * 60 * 60

/** A domain: letters, digits, `-` and `.` (a leading `.` is allowed and ignored by browsers). */
const DOMAIN =
  /^\.?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/

/** A path: starts with `/`, visible ASCII without `;` and `,`. */
const PATH = /^\/[!-+\--:<-~]*$/

const SAME_SITE: ReadonlySet<unknown> = new Set(["lax", "strict", "none"])

/** Throws a `TypeError` naming the option when `value` is not a string `pattern` accepts. */
const stringOption = (
  fn: string,
  option: string,
  value: unknown,
  pattern: RegExp,
  what: string
): string => {
  if (typeof value !== "string" || !pattern.test(value)) {
    throw new TypeError(`${fn}: options.${option} must be ${what}, got ${describe(value)}`)
  }
  return value
}

const booleanOption = (fn: string, option: string, value: unknown, fallback: boolean) => {
  if (value === undefined) return fallback
  if (typeof value !== "boolean") {
    throw new TypeError(`${fn}: options.${option} must be a boolean, got ${describe(value)}`)
  }
  return value
}

/**
 * The session cookie's attributes for these options; bad options throw a `TypeError` naming the
 * option, so that nothing a caller passes ever becomes an attribute of its own.
 */
export const sessionCookie = (
  durationMillis: DurationMillis,
  fn: "setSessionCookie" | "clearSessionCookie",
  options: SessionCookieOptionsOf<unknown> | undefined
): SessionCookie => {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`${fn}: options must be an object, got ${describe(options)}`)
  }
  const name =
    options?.name === undefined
      ? "session_id"
      : stringOption(fn, "name", options.name, TOKEN, "a cookie name (an RFC 6265 token)")
  const path =
    options?.path === undefined
      ? "/"
      : stringOption(fn, "path", options.path, PATH, 'a path starting with "/", without ";" or ","')
  const domain =
    options?.domain === undefined
      ? undefined
      : stringOption(fn, "domain", options.domain, DOMAIN, "a domain name")
  const secure = booleanOption(fn, "secure", options?.secure, true)
  const sameSite = options?.sameSite ?? "lax"
  if (!SAME_SITE.has(sameSite)) {
    throw new TypeError(
      `${fn}: options.sameSite must be "lax", "strict" or "none", got ${describe(sameSite)}`
    )
  }
  if (sameSite === "none" && !secure) {
    throw new TypeError(
      `${fn}: options.sameSite "none" needs secure: true (browsers drop a SameSite=None cookie that is not Secure)`
    )
  }
  // browsers refuse a cookie whose name's prefix promises what its attributes do not (RFC 6265bis,
  // and its `__Http-` / `__Host-Http-` prefixes, which also ask HttpOnly, always set here): the
  // login would not stick, and nothing would say why
  const prefix = /^__(secure|host-http|host|http)-/i.exec(name)?.[0]
  if (prefix !== undefined && !secure) {
    throw new TypeError(
      `${fn}: options.name "${name}" needs secure: true (browsers refuse a ${prefix} cookie that is not Secure)`
    )
  }
  if (prefix?.toLowerCase().startsWith("__host-") && (domain !== undefined || path !== "/")) {
    throw new TypeError(
      `${fn}: options.name "${name}" needs path "/" and no domain (browsers refuse a ${prefix} cookie with either)`
    )
  }
  const persistent = options?.persistent
  let maxAgeSeconds: number | undefined
  if (persistent === true) maxAgeSeconds = THIRTY_DAYS_SECONDS
  else if (persistent !== undefined && persistent !== false) {
    const millis = positiveDurationOption(durationMillis, `${fn}: options.persistent`, persistent)
    maxAgeSeconds = Math.min(Math.ceil(millis / 1000), MAX_AGE_LIMIT_SECONDS)
  }
  return {
    name,
    options: {
      httpOnly: true,
      secure,
      sameSite,
      path,
      ...(domain === undefined ? {} : { domain }),
      ...(maxAgeSeconds === undefined ? {} : { maxAge: `${maxAgeSeconds} seconds` as const })
    }
  }
}

/** The cookie that ends the session cookie: the same name, path and domain, expired. */
export const expiredCookie = (cookie: SessionCookie): SessionCookie => {
  const { maxAge: _, ...options } = cookie.options
  return { name: cookie.name, options: { ...options, maxAge: "0 seconds", expires: new Date(0) } }
}

/** The id as the cookie's value: a session id (SPEC 6.2), or an error that does not quote it. */
export const cookieValue = (fn: string, id: string): string => {
  if (!isValidSessionId(id)) {
    throw new TypeError(`${fn}: id must be a session id (1 to 512 visible ASCII characters)`)
  }
  return id
}
