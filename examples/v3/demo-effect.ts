/**
 * The demo story as an Effect program: `yield* SvcClient` gives the Effect API, where a request
 * succeeds with an `ApiResponse` or fails with a typed `SvcError` (`HttpError`, `TimeoutError`, …).
 * The transport is a layer you choose; here undici, the fastest on Node.
 *
 * Run alone with `npm run demo -- --effect`.
 */
import { pathToFileURL } from "node:url"
import { NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { between, inOp, lte } from "svc-sdk/Query"
import { type ApiResponse, SvcClient, type SvcError } from "svc-sdk/v3"
import { launch } from "./server.js"
import {
  asApiResponse,
  cookieRequest,
  dataHas,
  type Expected,
  errorIs,
  LoginData,
  makeStory,
  type StepFailed,
  totalIs
} from "./steps.js"

const story = (baseUrl: string) =>
  Effect.gen(function* () {
    const client = yield* SvcClient
    const { step } = makeStory(`Effect program: yield* SvcClient (${baseUrl})`)

    /** Records a request's outcome; a typed failure is shown as the facade would show it. */
    const expect =
      <A>(name: string, request: string, expected: Expected<A>) =>
      (self: Effect.Effect<ApiResponse<A>, SvcError>): Effect.Effect<ApiResponse<A>, StepFailed> =>
        self.pipe(
          Effect.catchAll((error) => Effect.succeed(asApiResponse(error))),
          Effect.flatMap((response) =>
            Effect.try({
              try: () => step(name, request, response, expected),
              catch: (error) => error as StepFailed
            })
          )
        )

    /** Logs in and keeps the (decoded, `Redacted`) session id for the next requests. */
    const login = (who: string, email: string, password: string) =>
      client.post("/login", { email, password }, { schema: LoginData }).pipe(
        expect(`${who} logs in`, "POST /login", { status: 200 }),
        Effect.tap((response) =>
          response.success ? client.setSessionId(response.data.session_id) : Effect.void
        ),
        Effect.map((response) => (response.success ? Redacted.value(response.data.session_id) : ""))
      )

    const cheap = client
      .query("/products")
      .where("category", inOp(["electronics", "office"]))
      .where("price", lte(50))
      .sort("price", "desc")
      .limit(4)
    yield* cheap.get().pipe(
      expect("Guest browses with filters", `GET ${cheap.toURL()}`, {
        status: 200,
        check: totalIs(7)
      })
    )

    const search = client.query("/products").search("desk").where("stock", between(1, 100))
    const page2 = search.page(2).limit(2)
    yield* page2
      .get()
      .pipe(
        expect("Guest searches, page 2", `GET ${page2.toURL()}`, { status: 200, check: totalIs(3) })
      )

    const malformed = "/products?price[approx]=10"
    yield* client
      .get(malformed)
      .pipe(expect("Malformed query is refused", `GET ${malformed}`, { status: 400 }))
    yield* client.get("/me").pipe(expect("Guest asks who they are", "GET /me", { status: 401 }))
    yield* client
      .post("/login", { email: "bob@example.com", password: "guess" })
      .pipe(expect("Login with a wrong password", "POST /login", { status: 401 }))

    yield* login("Bob (editor)", "bob@example.com", "bob-secret")
    yield* client
      .get("/me")
      .pipe(
        expect("Bob asks who he is", "GET /me", { status: 200, check: dataHas("user_id", "u-bob") })
      )
    yield* client.delete("/products/3").pipe(
      expect("Bob deletes a product", "DELETE /products/3", {
        status: 200,
        check: dataHas("name", "USB-C Hub")
      })
    )
    yield* client
      .get("/admin/stats")
      .pipe(expect("Bob opens admin stats", "GET /admin/stats", { status: 403 }))
    yield* client.post("/logout").pipe(expect("Bob logs out", "POST /logout", { status: 200 }))
    // The client still holds the revoked id: the server must now refuse it.
    yield* client
      .get("/me")
      .pipe(expect("Bob's old session is rejected", "GET /me", { status: 401 }))

    yield* login("Carol (viewer)", "carol@example.com", "carol-secret")
    yield* client
      .delete("/products/4")
      .pipe(expect("Carol deletes a product", "DELETE /products/4", { status: 403 }))

    const alice = yield* login("Alice (admin)", "alice@example.com", "alice-secret")
    yield* client.get("/admin/stats").pipe(
      expect("Alice opens admin stats", "GET /admin/stats", {
        status: 200,
        check: dataHas("products", 23)
      })
    )

    // Her browser also holds the session as a cookie, sent by itself even when another site's page
    // makes the request: the guards refuse such a state-changing request before any lookup.
    const noSession = { includeSession: false } as const
    yield* client.delete("/products/5", { ...noSession, headers: cookieRequest(alice, true) }).pipe(
      expect("Cross-site delete, her cookie", "DELETE /products/5 · from evil.example", {
        status: 403,
        check: errorIs("Cross-site request refused")
      })
    )
    yield* client
      .delete("/products/5", { ...noSession, headers: cookieRequest(alice, false) })
      .pipe(
        expect("Same-site delete, her cookie", "DELETE /products/5 · from her page", {
          status: 200
        })
      )

    // A GET is retried on timeout: 3 tries of 200 ms each (with backoff between), then TIMEOUT. A
    // `Duration` here; a `retrySchedule` (a `Schedule`) would replace the retry's timing and count.
    yield* client.get("/slow", { params: { ms: 1_000 }, timeout: "200 millis" }).pipe(
      expect("Slow answer times out (3 tries)", "GET /slow?ms=1000 · timeout 200 ms", {
        status: 0,
        code: "TIMEOUT"
      })
    )
    // The server fails twice with 503; the client's default retry makes the third attempt succeed.
    yield* client.get("/flaky", { params: { key: "story", failures: 2 } }).pipe(
      expect("503 twice, the retry succeeds", "GET /flaky?key=story", {
        status: 200,
        check: dataHas("attempts", 3)
      })
    )
    yield* client.clearSession()
  })

/** The story against `baseUrl`, over undici. */
export const runEffectStory = (baseUrl: string): Effect.Effect<void, StepFailed> =>
  story(baseUrl).pipe(
    Effect.provide(SvcClient.layer(baseUrl, { timeout: "5 seconds" })),
    Effect.provide(NodeHttpClient.layerUndici)
  )

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  Effect.flatMap(launch(), runEffectStory).pipe(Effect.scoped, NodeRuntime.runMain)
}
