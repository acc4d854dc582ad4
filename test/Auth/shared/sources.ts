/**
 * Where the session id comes from (SPEC 6.2), as requests to a router with these routes on both
 * Effect lines, each answering `{ id }` with requireAuth: `/me` (the defaults), `/custom`
 * (`header: "X-Token", cookie: "sid", query: "token"`), `/no-query` (`query: false`) and
 * `/no-cookie` (`cookie: false`).
 */

export interface Case {
  readonly name: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly status: number
  readonly body: unknown
  readonly calls: number
}

const required = { error: "Session ID required" }
const invalid = { error: "Invalid session" }
const long = "x".repeat(512)

export const cases: ReadonlyArray<Case> = [
  {
    name: "header",
    path: "/me",
    headers: { "X-Session-Id": "s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "header name is case-insensitive",
    path: "/me",
    headers: { "x-session-id": "s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "cookie",
    path: "/me",
    headers: { Cookie: "theme=dark; session_id=s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  { name: "query", path: "/me?session_id=s-user", status: 200, body: { id: "u1" }, calls: 1 },
  {
    name: "header beats cookie",
    path: "/me",
    headers: { "X-Session-Id": "s-user", Cookie: "session_id=s-admin" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "header beats query",
    path: "/me?session_id=s-admin",
    headers: { "X-Session-Id": "s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "cookie beats query",
    path: "/me?session_id=s-admin",
    headers: { Cookie: "session_id=s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "empty header counts as absent",
    path: "/me",
    headers: { "X-Session-Id": "", Cookie: "session_id=s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "empty cookie counts as absent",
    path: "/me?session_id=s-user",
    headers: { Cookie: "session_id=" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "empty query counts as absent",
    path: "/me?session_id=",
    status: 401,
    body: required,
    calls: 0
  },
  {
    name: "nothing anywhere",
    path: "/me?other=1",
    headers: { Cookie: "theme=dark" },
    status: 401,
    body: required,
    calls: 0
  },
  {
    name: "a malformed header wins over a good cookie",
    path: "/me",
    headers: { "X-Session-Id": "a b", Cookie: "session_id=s-user" },
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "space in header",
    path: "/me",
    headers: { "X-Session-Id": "s- user" },
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "tab in header",
    path: "/me",
    headers: { "X-Session-Id": "s-\tuser" },
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "control character in query",
    path: "/me?session_id=s-%01user",
    status: 401,
    body: invalid,
    calls: 0
  },
  { name: "DEL in query", path: "/me?session_id=s-%7Fuser", status: 401, body: invalid, calls: 0 },
  {
    name: "C1 next-line control U+0085 in query (security item 8)",
    path: "/me?session_id=s-%C2%85user",
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "C1 control U+009B in cookie (security item 8)",
    path: "/me",
    headers: { Cookie: "session_id=s-%C2%9Buser" },
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "non-ASCII in query",
    path: "/me?session_id=s-%C3%BCser",
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "newline in query",
    path: "/me?session_id=s-%0Auser",
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "plus in query is a space",
    path: "/me?session_id=s+user",
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "513 characters",
    path: "/me",
    headers: { "X-Session-Id": `${long}x` },
    status: 401,
    body: invalid,
    calls: 0
  },
  {
    name: "512 characters are asked about",
    path: "/me",
    headers: { "X-Session-Id": long },
    status: 401,
    body: invalid,
    calls: 1
  },
  {
    name: "percent-encoded query value is decoded",
    path: "/me?session_id=s%2Duser",
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "custom header",
    path: "/custom",
    headers: { "X-Token": "s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "custom cookie",
    path: "/custom",
    headers: { Cookie: "sid=s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  { name: "custom query", path: "/custom?token=s-user", status: 200, body: { id: "u1" }, calls: 1 },
  {
    name: "custom names ignore the defaults",
    path: "/custom?session_id=s-user",
    headers: { "X-Session-Id": "s-user", Cookie: "session_id=s-user" },
    status: 401,
    body: required,
    calls: 0
  },
  {
    name: "query switched off",
    path: "/no-query?session_id=s-user",
    status: 401,
    body: required,
    calls: 0
  },
  {
    name: "query switched off, header still read",
    path: "/no-query",
    headers: { "X-Session-Id": "s-user" },
    status: 200,
    body: { id: "u1" },
    calls: 1
  },
  {
    name: "cookie switched off",
    path: "/no-cookie",
    headers: { Cookie: "session_id=s-user" },
    status: 401,
    body: required,
    calls: 0
  }
]
