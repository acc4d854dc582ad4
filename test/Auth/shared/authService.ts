/**
 * A real local auth service (node:http on 127.0.0.1, port 0) for `SessionValidator.http`, on both
 * Effect lines: it answers by the session id it is sent (`answers`), never answers `s-slow`, and
 * redirects `s-redirect` to a foreign server that would answer an admin's session to anyone.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export const session = { user_id: "u1", email: "u1@example.com", permissions: ["a"], team: "core" }

/** What the auth service answers, by session id. */
export const answers: Record<string, { status: number; type?: string; body?: string }> = {
  "s-user": { status: 200, body: JSON.stringify(session) },
  "s-envelope": { status: 200, body: JSON.stringify({ success: true, data: session }) },
  "s-401": { status: 401, body: JSON.stringify({ error: "Invalid session" }) },
  "s-403": { status: 403, body: "" },
  "s-404": { status: 404, body: "" },
  "s-500": { status: 500, body: JSON.stringify({ error: "boom" }) },
  "s-503": { status: 503, body: "" },
  "s-400": { status: 400, body: "" },
  "s-204": { status: 204 },
  // another 2xx with a session: valid too (SPEC 6.4: "a 2xx whose body is SessionData")
  "s-201": { status: 201, body: JSON.stringify(session) },
  "s-203-envelope": { status: 203, body: JSON.stringify({ success: true, data: session }) },
  // an envelope with fields of its own beside (a request id, a timestamp): still an envelope
  "s-envelope-extra": {
    status: 200,
    body: JSON.stringify({ success: true, data: session, requestId: "r1", timestamp: 1 })
  },
  // a verdict under a name of its own beside an envelope: not read as one (fail closed)
  "s-envelope-extra-verdict": {
    status: 200,
    body: JSON.stringify({ success: true, data: session, authenticated: false })
  },
  "s-envelope-extra-errors": {
    status: 200,
    body: JSON.stringify({ success: true, data: session, errors: ["expired"] })
  },
  "s-envelope-extra-denied": {
    status: 200,
    body: JSON.stringify({ success: false, data: session, requestId: "r1" })
  },
  "s-201-denied": { status: 201, body: JSON.stringify({ success: false, data: session }) },
  // a verdict under another common name: valid (anything but true), active (RFC 7662's false)
  "s-valid-false": { status: 200, body: JSON.stringify({ ...session, valid: false }) },
  "s-valid-string": { status: 200, body: JSON.stringify({ valid: "false", data: session }) },
  "s-active-false": { status: 200, body: JSON.stringify({ ...session, active: false }) },
  "s-active-zero": { status: 200, body: JSON.stringify({ active: 0, data: session }) },
  "s-valid-true": { status: 200, body: JSON.stringify({ ...session, valid: true, active: true }) },
  "s-bad": { status: 200, body: JSON.stringify({ email: "no id" }) },
  "s-text": { status: 200, type: "text/plain", body: "yes" },
  "s-array": { status: 200, body: JSON.stringify([session]) },
  // answers that deny the session in a 200's body: each must be an invalid session (fail closed)
  "s-expired": {
    status: 200,
    body: JSON.stringify({ success: false, error: "Session expired", data: { user_id: "u1" } })
  },
  "s-revoked": {
    status: 200,
    body: JSON.stringify({ success: false, message: "revoked", data: { user_id: "u1" } })
  },
  "s-error-only": {
    status: 200,
    body: JSON.stringify({ error: { code: "expired" }, data: { user_id: "u1" } })
  },
  "s-error-beside": { status: 200, body: JSON.stringify({ ...session, error: "expired" }) },
  "s-success-false": { status: 200, body: JSON.stringify({ ...session, success: false }) },
  "s-success-string": {
    status: 200,
    body: JSON.stringify({ success: "false", data: { user_id: "u1" } })
  },
  "s-success-null": { status: 200, body: JSON.stringify({ success: null, data: session }) },
  "s-nested-deny": {
    status: 200,
    body: JSON.stringify({ success: true, data: { ...session, success: false, error: "expired" } })
  },
  "s-jsend-error": {
    status: 200,
    body: JSON.stringify({ status: "error", message: "expired", data: session })
  },
  "s-status-401": { status: 200, body: JSON.stringify({ status: 401, data: session }) },
  "s-status-401-text": {
    status: 200,
    body: JSON.stringify({ success: true, status: "401", data: session })
  },
  "s-status-fail-case": { status: 200, body: JSON.stringify({ status: "FAIL", data: session }) },
  "s-status-line": {
    status: 200,
    body: JSON.stringify({ ...session, status: "HTTP/1.1 401 Unauthorized" })
  },
  "s-status-reason": {
    status: 200,
    body: JSON.stringify({ success: true, status: "401 Unauthorized", data: session })
  },
  "s-status-negative": { status: 200, body: JSON.stringify({ ...session, status: "-1" }) },
  "s-status-decimal": { status: 200, body: JSON.stringify({ ...session, status: "401.0" }) },
  "s-status-ok-text": {
    status: 200,
    body: JSON.stringify({ success: true, status: "200 OK", data: session })
  },
  "s-status-word": { status: 200, body: JSON.stringify({ ...session, status: "active" }) },
  "s-error-null": {
    status: 200,
    body: JSON.stringify({ success: true, data: session, error: null })
  }
}

export interface AuthService {
  /** The session endpoint (`/sessions/current?v=1`). */
  readonly url: string
  /** Every request the service got, in order. */
  readonly received: Array<{ method: string; url: string; headers: IncomingHttpHeaders }>
  /** How many requests reached the foreign server. */
  readonly foreignCalls: () => number
  readonly close: () => Promise<void>
}

export const startAuthService = async (): Promise<AuthService> => {
  const received: AuthService["received"] = []
  let foreign = ""
  let foreignCalls = 0
  const server = createServer((request, response) => {
    received.push({
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers
    })
    const id = String(request.headers["x-session-id"] ?? request.headers["x-auth-session"] ?? "")
    if (id === "s-slow") return // never answers
    if (id === "s-redirect") {
      // to another origin, which answers with an admin's session to anyone
      response.writeHead(302, { location: `${foreign}/session` })
      return response.end()
    }
    const answer = answers[id] ?? { status: 404, body: "" }
    response.writeHead(answer.status, { "content-type": answer.type ?? "application/json" })
    response.end(answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sessions/current?v=1`
  const foreignServer = createServer((_request, response) => {
    foreignCalls++
    response.writeHead(200, { "content-type": "application/json" })
    response.end(JSON.stringify({ user_id: "foreign", user_type: "admin" }))
  })
  await new Promise<void>((resolve) => foreignServer.listen(0, "127.0.0.1", resolve))
  foreign = `http://127.0.0.1:${(foreignServer.address() as AddressInfo).port}`
  return {
    url,
    received,
    foreignCalls: () => foreignCalls,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await new Promise((resolve) => foreignServer.close(resolve))
    }
  }
}

/** Ids the service answers with a 2xx or 4xx that must be an invalid session (fail closed). */
export const DENIED = [
  "s-401",
  "s-403",
  "s-404",
  "s-unknown",
  "s-expired",
  "s-revoked",
  "s-error-only",
  "s-error-beside",
  "s-success-false",
  "s-success-string",
  "s-success-null",
  "s-nested-deny",
  "s-jsend-error",
  "s-status-401",
  "s-status-401-text",
  "s-status-fail-case",
  "s-status-line",
  "s-status-reason",
  "s-status-negative",
  "s-status-decimal",
  "s-201-denied",
  "s-valid-false",
  "s-valid-string",
  "s-active-false",
  "s-active-zero"
] as const

/** Ids the service answers with something that is not an answer: the validator is unavailable. */
export const UNAVAILABLE = [
  ["s-500", "Failure"],
  ["s-503", "Failure"],
  ["s-400", "Failure"],
  ["s-204", "InvalidResponse"],
  ["s-bad", "InvalidResponse"],
  ["s-text", "InvalidResponse"],
  ["s-array", "InvalidResponse"],
  ["s-envelope-extra-verdict", "InvalidResponse"],
  ["s-envelope-extra-errors", "InvalidResponse"]
] as const

/** What a `requireAuth` route answers over `SessionValidator.http`, by id. */
export const THROUGH_GUARD = [
  ["s-user", 200, { id: "u1" }],
  ["s-envelope", 200, { id: "u1" }],
  ["s-envelope-extra", 200, { id: "u1" }],
  ["s-envelope-extra-denied", 401, { error: "Invalid session" }],
  ["s-expired", 401, { error: "Invalid session" }],
  ["s-revoked", 401, { error: "Invalid session" }],
  ["s-error-only", 401, { error: "Invalid session" }],
  ["s-success-false", 401, { error: "Invalid session" }],
  ["s-500", 500, { error: "Authentication service unavailable" }]
] as const
