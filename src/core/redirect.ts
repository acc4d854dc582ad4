/**
 * Redirects, followed by the pipeline itself (RFC 9110 15.4, as fetch does), the same on every
 * transport and both Effect lines: what a response leads to, and the request of the next hop.
 */
import type { TransportRequest, TransportResponse } from "./transport.js"

/** Hops followed before a request fails, as browsers and ky do. */
export const MAX_REDIRECTS = 10

/** Headers that describe a request body: they go when a redirect drops the body. */
const BODY_HEADERS = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location"
] as const

/** Methods a runtime may repeat to follow a redirect it hides (nothing changes on the server). */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"])

/** Where credentials may go, and which header carries the session. */
export interface Home {
  /** The base URL's origin. */
  readonly origin: string
  /** The session header's name, lower-case. */
  readonly sessionHeader: string
}

/**
 * What the rules take from the pipeline's own modules, passed in rather than imported: this module
 * loads on demand, and one that shared modules with the code loaded at once would split them into
 * a chunk of their own.
 */
export interface RedirectKit {
  /** Headers that carry credentials (`CREDENTIAL_HEADERS`, headers.ts). */
  readonly credentialHeaders: ReadonlyArray<string>
  /** The trace context's headers (`TRACE_HEADERS`, tracing.ts). */
  readonly traceHeaders: ReadonlyArray<string>
}

/** What a response leads to. */
export type Step =
  /** Send this request next. */
  | { readonly _tag: "Hop"; readonly request: TransportRequest }
  /** Fail: sending again could only repeat it (never retried). */
  | { readonly _tag: "Refuse"; readonly reason: string }

/** The redirect rules: {@link Step | what a response leads to}, given the pipeline's kit. */
export const redirectRules = (kit: RedirectKit) => {
  /** Whether the request carries the session or other credentials. */
  const carriesCredentials = (home: Home, headers: Readonly<Record<string, string>>) =>
    headers[home.sessionHeader] !== undefined ||
    kit.credentialHeaders.some((name) => headers[name] !== undefined)

  /**
   * What `response`, the answer to `request` after `hops` redirects, leads to; the pipeline asks
   * only of a response that may lead on (`leadsOn`, transport.ts). A redirect a browser's fetch
   * hides is let through only for a request with nothing to leak and safe to send again.
   */
  const nextStep = (
    home: Home,
    request: TransportRequest,
    response: TransportResponse,
    hops: number
  ): Step => {
    if (response.hiddenRedirect) {
      if (carriesCredentials(home, request.headers) || !SAFE_METHODS.has(request.method)) {
        return {
          _tag: "Refuse",
          reason:
            "the server answered with a redirect whose target this runtime hides; it was not followed, so that the session cannot reach another origin"
        }
      }
      return { _tag: "Hop", request: { ...request, followHiddenRedirects: true } }
    }
    const location = response.headers.location as string
    if (hops >= MAX_REDIRECTS) {
      return { _tag: "Refuse", reason: `too many redirects (more than ${MAX_REDIRECTS})` }
    }
    const target = URL.canParse(location, request.url) ? new URL(location, request.url) : undefined
    // user info (user:password@) is refused as in an endpoint: fetch refuses it, undici drops it
    if (
      target === undefined ||
      (target.protocol !== "http:" && target.protocol !== "https:") ||
      target.username ||
      target.password
    ) {
      return {
        _tag: "Refuse",
        reason: "a redirect pointed to a location that is not an http(s) URL without user info"
      }
    }
    return { _tag: "Hop", request: nextHop(home, request, response.status, target) }
  }

  /**
   * The request for the next hop of a redirect: 303 turns anything but GET/HEAD into a GET
   * without a body, 301/302 turn a POST into one, and the body's headers go with the body; 307/308
   * keep method and body. Leaving the current origin, or the base URL's, drops the session header
   * and credentials; so does leaving https for http.
   */
  const nextHop = (
    home: Home,
    request: TransportRequest,
    status: number,
    location: URL
  ): TransportRequest => {
    const toGet =
      (status === 303 && request.method !== "GET" && request.method !== "HEAD") ||
      ((status === 301 || status === 302) && request.method === "POST")
    const headers: Record<string, string> = { ...request.headers }
    if (toGet) for (const name of BODY_HEADERS) delete headers[name]
    if (location.origin !== new URL(request.url).origin || location.origin !== home.origin) {
      delete headers[home.sessionHeader]
      for (const name of kit.credentialHeaders) delete headers[name]
    }
    // trace context goes to the base URL's origin only (SPEC 4.3.12)
    if (location.origin !== home.origin) for (const name of kit.traceHeaders) delete headers[name]
    return {
      ...request,
      method: toGet ? "GET" : request.method,
      url: location.href,
      headers,
      body: toGet ? undefined : request.body,
      propagateTrace: location.origin === home.origin
    }
  }
  return { nextStep }
}
