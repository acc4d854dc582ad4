/**
 * The demo's story, written once for its four tellings (the Promise facade and an Effect program,
 * on each Effect line: `demo.ts` and `demo-effect.ts`, `v3/demo.ts` and `v3/demo-effect.ts`): who
 * logs in, and each step's name, request and expected answer. A telling holds only the calls, so
 * the four print the same table.
 */
import { answerTo } from "./live.js"
import { dataHas, errorIs, type Step, totalIs } from "./steps.js"
import { answered, everyEventOnce } from "./streaming.js"
import { DEMO_PASSWORDS } from "./users.js"

/** Someone who logs in during the story. */
export interface Login {
  /** The step's name: `<who> logs in`. */
  readonly who: string
  readonly email: keyof typeof DEMO_PASSWORDS
  readonly password: string
}

const login = (who: string, email: keyof typeof DEMO_PASSWORDS): Login => ({
  who,
  email,
  password: DEMO_PASSWORDS[email]
})

export const BOB = login("Bob (editor)", "bob@example.com")
export const CAROL = login("Carol (viewer)", "carol@example.com")
export const ALICE = login("Alice (admin)", "alice@example.com")

/** A login with a password that is not Bob's. */
export const WRONG_PASSWORD = { email: BOB.email, password: "guess" } as const

/** The step of a login. */
export const loggedIn = ({ who }: Login): Step => ({
  name: `${who} logs in`,
  request: "POST /login",
  status: 200
})

/**
 * The query the guest browses with (the tellings build it with the query builder and show its URL).
 */
export const BROWSE = {
  categories: ["electronics", "office"],
  maxPrice: 50,
  limit: 4
} as const

export const SEARCH = { text: "desk", stock: [1, 100], page: 2, limit: 2 } as const

/** The slow request: the server waits `ms`, the client gives each try `timeout` ms. */
export const SLOW = { ms: 1_000, timeout: 200 } as const

/** The flaky request: the server fails `failures` times with 503 for this key. */
export const FLAKY = { key: "story", failures: 2 } as const

export const MALFORMED_QUERY = "/products?price[approx]=10"

/**
 * The live feed: 5 events, 10 ms apart; the server cuts the connection after the 2nd and asks
 * clients to wait 100 ms before they reconnect (`retry:`).
 */
export const FEED = { count: 5, drop: 2, interval: 10, retry: 100 } as const

/** What the story asks the streamed answer (`POST /chat`). */
export const CHAT = { prompt: "A haiku about HTTP" } as const

/** The download's size, in bytes. */
export const DOWNLOAD = { bytes: 512 * 1024 } as const

/** Every step but the logins, in the order told. */
export const STEPS = {
  browse: {
    name: "Guest browses with filters",
    request: "GET /products",
    status: 200,
    check: totalIs(7)
  },
  search: {
    name: "Guest searches, page 2",
    request: "GET /products",
    status: 200,
    check: totalIs(3)
  },
  malformed: {
    name: "Malformed query is refused",
    request: `GET ${MALFORMED_QUERY}`,
    status: 400
  },
  guestMe: { name: "Guest asks who they are", request: "GET /me", status: 401 },
  wrongPassword: { name: "Login with a wrong password", request: "POST /login", status: 401 },
  bobMe: {
    name: "Bob asks who he is",
    request: "GET /me",
    status: 200,
    check: dataHas("user_id", "u-bob")
  },
  bobDeletes: {
    name: "Bob deletes a product",
    request: "DELETE /products/3",
    status: 200,
    check: dataHas("name", "USB-C Hub")
  },
  bobStats: { name: "Bob opens admin stats", request: "GET /admin/stats", status: 403 },
  bobLogsOut: { name: "Bob logs out", request: "POST /logout", status: 200 },
  // The client still holds the revoked id: the server must now refuse it.
  bobRevoked: { name: "Bob's old session is rejected", request: "GET /me", status: 401 },
  carolDeletes: { name: "Carol deletes a product", request: "DELETE /products/4", status: 403 },
  aliceStats: {
    name: "Alice opens admin stats",
    request: "GET /admin/stats",
    status: 200,
    check: dataHas("products", 23)
  },
  // Her browser also holds the session as a cookie, which it sends by itself, even with a request
  // another site's page makes. The guards refuse such a request when it changes state, before the
  // session is looked up; from her own page it goes through.
  crossSite: {
    name: "Cross-site delete, her cookie",
    request: "DELETE /products/5 · from evil.example",
    status: 403,
    check: errorIs("Cross-site request refused")
  },
  sameSite: {
    name: "Same-site delete, her cookie",
    request: "DELETE /products/5 · from her page",
    status: 200
  },
  // A GET is retried on timeout: 3 tries of 200 ms each (with backoff between), then TIMEOUT.
  slow: {
    name: "Slow answer times out (3 tries)",
    request: `GET /slow?ms=${SLOW.ms} · timeout ${SLOW.timeout} ms`,
    status: 0,
    code: "TIMEOUT"
  },
  // The server fails twice with 503; the client's retry makes the third attempt succeed.
  flaky: {
    name: "503 twice, the retry succeeds",
    request: `GET /flaky?key=${FLAKY.key}`,
    status: 200,
    check: dataHas("attempts", 3)
  },
  // The connection drops after event 2: the client waits the server's `retry:`, reconnects with
  // `Last-Event-ID: 2` and reads on from event 3; after event 5 the server answers 204, which ends
  // the stream.
  feed: {
    name: "Live feed resumes after a drop",
    request: `GET /events?count=${FEED.count}&drop=${FEED.drop} · sse`,
    status: 200,
    check: everyEventOnce(FEED.count)
  },
  // A POST answered as events, each decoded with a schema; the tokens join into the answer.
  chat: {
    name: "Streamed answer, token by token",
    request: "POST /chat · sse with a schema",
    status: 200,
    check: answered(answerTo(CHAT.prompt))
  },
  download: {
    name: "Download with a progress bar",
    request: `GET /download?bytes=${DOWNLOAD.bytes} · stream`,
    status: 200,
    check: dataHas("bytes", DOWNLOAD.bytes)
  }
} as const satisfies Record<string, Step>
