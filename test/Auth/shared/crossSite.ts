/**
 * The cross-site table of SPEC 6.3a (security item 10), on both Effect lines: method × where the
 * id is × what `Sec-Fetch-Site`/`Origin` say, and whether a state-changing request with an
 * ambient id gets 403. `SAME` stands for the server's own origin.
 */

export type Method = "GET" | "HEAD" | "OPTIONS" | "POST" | "PUT" | "PATCH" | "DELETE"
export const SAFE: ReadonlyArray<Method> = ["GET", "HEAD", "OPTIONS"]
export const UNSAFE: ReadonlyArray<Method> = ["POST", "PUT", "PATCH", "DELETE"]
export type Source = "header" | "cookie" | "query"

/** What the browser says about where the request came from; `SAME` stands for the server's origin. */
export interface Site {
  readonly name: string
  readonly origin?: string
  readonly fetchSite?: string
  /** Whether an unsafe request with an ambient id is allowed. */
  readonly allowed: boolean
}

export const sites: ReadonlyArray<Site> = [
  { name: "no Origin, no Sec-Fetch-Site (not a browser)", allowed: true },
  { name: "Sec-Fetch-Site: same-origin", origin: "SAME", fetchSite: "same-origin", allowed: true },
  { name: "Sec-Fetch-Site: none (typed by the user)", fetchSite: "none", allowed: true },
  {
    name: "Sec-Fetch-Site: cross-site, Origin evil",
    origin: "http://evil.example",
    fetchSite: "cross-site",
    allowed: false
  },
  {
    name: "Sec-Fetch-Site: same-site (a sibling subdomain)",
    origin: "http://other.127.0.0.1.nip.example",
    fetchSite: "same-site",
    allowed: false
  },
  {
    name: "Sec-Fetch-Site: cross-site even with a same-host Origin",
    origin: "SAME",
    fetchSite: "cross-site",
    allowed: false
  },
  {
    name: "Origin evil, no Sec-Fetch-Site (older browser)",
    origin: "http://evil.example",
    allowed: false
  },
  { name: "Origin the server's own host, no Sec-Fetch-Site", origin: "SAME", allowed: true },
  { name: "Origin null (sandboxed page)", origin: "null", allowed: false }
]

export interface Row {
  readonly method: Method
  readonly source: Source
  readonly site: Site
  readonly status: number
}

export const rows: Array<Row> = []
for (const method of [...SAFE, ...UNSAFE]) {
  for (const source of ["header", "cookie", "query"] as const) {
    for (const site of sites) {
      const refused = UNSAFE.includes(method) && source !== "header" && !site.allowed
      rows.push({ method, source, site, status: refused ? 403 : 200 })
    }
  }
}

export interface Sent {
  readonly path: string
  readonly method: Method
  readonly source: Source
  readonly id?: string
  readonly origin?: string | undefined
  readonly fetchSite?: string | undefined
}

/** The path and headers of a `Sent` request; `own` is the server's origin (for `SAME`). */
export const requestOf = (
  sent: Sent,
  own: string
): { readonly path: string; readonly headers: Record<string, string> } => {
  const id = sent.id ?? "s-user"
  const headers: Record<string, string> = {}
  if (sent.source === "header") headers["x-session-id"] = id
  if (sent.source === "cookie") headers.cookie = `session_id=${id}`
  if (sent.origin !== undefined) headers.origin = sent.origin === "SAME" ? own : sent.origin
  if (sent.fetchSite !== undefined) headers["sec-fetch-site"] = sent.fetchSite
  const path = sent.source === "query" ? `${sent.path}?session_id=${id}` : sent.path
  return { path, headers }
}
