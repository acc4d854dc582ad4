/**
 * The demo story as an Effect program on Effect 3 (`svc-sdk/v3`; `../demo-effect.ts` is the same
 * on Effect 4): `yield* SvcClient` gives the Effect API, where a request succeeds with an
 * `ApiResponse` or fails with a typed `SvcError` (`HttpError`, `TimeoutError`, …). The transport
 * is a layer you choose; here undici, the fastest on Node.
 *
 * Run alone with `npm run demo -- --effect`.
 */
import { pathToFileURL } from "node:url"
import { NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { between, inOp, lte } from "svc-sdk/Query"
import { type ApiResponse, SvcClient, type SvcError } from "svc-sdk/v3"
import {
  BURST,
  burstOutcome,
  DEVICE_STEPS,
  fetchFrom,
  GUESSER,
  GUESSER_ADDRESS,
  guessesOutcome
} from "../deviceStory.js"
import { ChatChunk } from "../live.js"
import {
  asApiResponse,
  cookieRequest,
  makeStory,
  type Outcome,
  type Step,
  type StepFailed
} from "../steps.js"
import {
  ALICE,
  BOB,
  BROWSE,
  CAROL,
  CHAT,
  DOWNLOAD,
  FEED,
  FLAKY,
  type Login,
  loggedIn,
  MALFORMED_QUERY,
  SEARCH,
  SLOW,
  STEPS,
  WRONG_PASSWORD
} from "../story.js"
import { chatRead, downloadProgress, downloadRead, feedRead } from "../streaming.js"
import { LoginData, RefreshedData } from "./login.js"
import { launch } from "./server.js"

const story = (baseUrl: string) =>
  Effect.gen(function* () {
    const client = yield* SvcClient
    const { step } = makeStory(`Effect program: yield* SvcClient (${baseUrl})`)

    /** Records a request's outcome; a typed failure is shown as the facade would show it. */
    const expect =
      (expected: Step, request?: string) =>
      <A>(
        self: Effect.Effect<ApiResponse<A>, SvcError>
      ): Effect.Effect<ApiResponse<A>, StepFailed> =>
        self.pipe(
          Effect.catchAll((error) => Effect.succeed<ApiResponse<A>>(asApiResponse(error))),
          Effect.flatMap((response) =>
            Effect.try({
              try: () => step(expected, response, request),
              catch: (error) => error as StepFailed
            })
          )
        )

    /** Logs in and keeps the (decoded, `Redacted`) session id for the next requests. */
    const login = (user: Login) =>
      client
        .post("/login", { email: user.email, password: user.password }, { schema: LoginData })
        .pipe(
          expect(loggedIn(user)),
          Effect.tap((response) =>
            response.success ? client.setSessionId(response.data.session_id) : Effect.void
          ),
          Effect.map((response) =>
            response.success ? Redacted.value(response.data.session_id) : ""
          )
        )

    const cheap = client
      .query("/products")
      .where("category", inOp(BROWSE.categories))
      .where("price", lte(BROWSE.maxPrice))
      .sort("price", "desc")
      .limit(BROWSE.limit)
    yield* cheap.get().pipe(expect(STEPS.browse, `GET ${cheap.toURL()}`))
    const search = client
      .query("/products")
      .search(SEARCH.text)
      .where("stock", between(...SEARCH.stock))
      .page(SEARCH.page)
      .limit(SEARCH.limit)
    yield* search.get().pipe(expect(STEPS.search, `GET ${search.toURL()}`))
    yield* client.get(MALFORMED_QUERY).pipe(expect(STEPS.malformed))
    yield* client.get("/me").pipe(expect(STEPS.guestMe))
    yield* client.post("/login", WRONG_PASSWORD).pipe(expect(STEPS.wrongPassword))

    yield* login(BOB)
    yield* client.get("/me").pipe(expect(STEPS.bobMe))
    yield* client.delete("/products/3").pipe(expect(STEPS.bobDeletes))
    yield* client.get("/admin/stats").pipe(expect(STEPS.bobStats))
    yield* client.post("/logout").pipe(expect(STEPS.bobLogsOut))
    yield* client.get("/me").pipe(expect(STEPS.bobRevoked))

    yield* login(CAROL)
    yield* client.delete("/products/4").pipe(expect(STEPS.carolDeletes))

    // Bob's devices: a laptop and a phone, each a client of its own (its session, its refresh token).
    let laptopToken = ""
    let refreshes = 0
    const laptop = yield* SvcClient.make(baseUrl, {
      timeout: "5 seconds",
      // a 401 for the laptop's session: one refresh, however many requests got one; each is then
      // sent again with the new id
      refreshSession: (_failed, client) =>
        client.post("/refresh", { refresh_token: laptopToken }, { schema: RefreshedData }).pipe(
          Effect.map((renewed) => {
            if (!renewed.success) return null
            laptopToken = Redacted.value(renewed.data.refresh_token)
            refreshes = renewed.data.refreshes
            return Redacted.value(renewed.data.session_id)
          })
        )
    })
    const phone = yield* SvcClient.make(baseUrl, { timeout: "5 seconds" })
    /** Bob signs in on `device`: its session id, and its refresh token when the login gave one. */
    const signIn = (device: typeof phone, expected: Step) =>
      device
        .post("/login", { email: BOB.email, password: BOB.password }, { schema: LoginData })
        .pipe(
          expect(expected),
          Effect.tap((response) =>
            response.success ? device.setSessionId(response.data.session_id) : Effect.void
          ),
          Effect.map((response) => {
            if (!response.success) return { id: "", token: "" }
            const token = response.data.refresh_token
            return {
              id: Redacted.value(response.data.session_id),
              token: token === undefined ? "" : Redacted.value(token)
            }
          })
        )
    /** A row for an outcome the story put together from several responses. */
    const record = (expected: Step, outcome: Outcome) =>
      Effect.try({ try: () => step(expected, outcome), catch: (error) => error as StepFailed })
    /** A request's outcome, its typed failure shown as the facade would show it. */
    const settle = <A>(self: Effect.Effect<ApiResponse<A>, SvcError>) =>
      self.pipe(Effect.catchAll((error) => Effect.succeed<ApiResponse<A>>(asApiResponse(error))))

    const onLaptop = yield* signIn(laptop, DEVICE_STEPS.laptop)
    laptopToken = onLaptop.token
    const onPhone = yield* signIn(phone, DEVICE_STEPS.phone)
    yield* laptop.get("/sessions").pipe(expect(DEVICE_STEPS.devices))
    yield* signIn(laptop, DEVICE_STEPS.relogin)
    const before = { includeSession: false, headers: { "X-Session-Id": onLaptop.id } }
    yield* laptop.get("/me", before).pipe(expect(DEVICE_STEPS.oldId))
    yield* laptop.post("/sessions/others").pipe(expect(DEVICE_STEPS.endOthers))
    yield* phone.get("/me").pipe(expect(DEVICE_STEPS.phoneRefused))
    const phoneToken = { refresh_token: onPhone.token }
    yield* phone.post("/refresh", phoneToken).pipe(expect(DEVICE_STEPS.phoneRefresh))

    // Someone guesses Dave's password from another machine: after 5 tries, locked out for a while.
    const guesser = yield* Effect.provide(
      SvcClient,
      SvcClient.layerDefault(baseUrl, { timeout: "5 seconds", fetch: fetchFrom(GUESSER_ADDRESS) })
    )
    const guess = { email: GUESSER.email, password: GUESSER.password }
    const guesses = yield* Effect.forEach(Array.from({ length: GUESSER.attempts }), () =>
      settle(guesser.post("/login", guess))
    )
    yield* record(DEVICE_STEPS.guesses, guessesOutcome(guesses))
    yield* guesser.post("/login", guess).pipe(expect(DEVICE_STEPS.locked))

    // The laptop's session ends on the server (in an app, its idle timeout; here a demo-only
    // route), its device kept: five requests at once all get a 401, one refresh renews it.
    yield* laptop.post("/demo/expire").pipe(expect(DEVICE_STEPS.expire))
    const burst = yield* Effect.all(
      Array.from({ length: BURST }, () => settle(laptop.get("/me"))),
      { concurrency: "unbounded" }
    )
    yield* record(DEVICE_STEPS.burst, burstOutcome(burst, refreshes))
    yield* laptop.post("/logout").pipe(expect(DEVICE_STEPS.laptopOut))
    yield* laptop.clearSession()
    const laptopRefresh = { refresh_token: laptopToken }
    yield* laptop.post("/refresh", laptopRefresh).pipe(expect(DEVICE_STEPS.laptopRefresh))

    const alice = yield* login(ALICE)
    yield* client.get("/admin/stats").pipe(expect(STEPS.aliceStats))
    // Her browser sends her session cookie by itself, from another site's page too.
    const forged = { includeSession: false, headers: cookieRequest(alice, true) }
    yield* client.delete("/products/5", forged).pipe(expect(STEPS.crossSite))
    const own = { includeSession: false, headers: cookieRequest(alice, false) }
    yield* client.delete("/products/5", own).pipe(expect(STEPS.sameSite))

    // A GET is retried on timeout, and on 503. A `Duration` here; a `retrySchedule` (a `Schedule`)
    // would replace the retry's timing and count.
    const timeout = `${SLOW.timeout} millis` as const
    yield* client.get("/slow", { params: { ms: SLOW.ms }, timeout }).pipe(expect(STEPS.slow))
    yield* client.get("/flaky", { params: FLAKY }).pipe(expect(STEPS.flaky))

    // Alice's live feed: a `Stream` of the events, across the dropped connection; it ends when
    // the server answers 204, and a failure that ends it is in its error channel. (A `Stream` ran,
    // so its response was a 2xx: the rows say 200.)
    yield* client.sse("/events", { params: FEED, reconnect: { attempts: 3 } }).pipe(
      Stream.runCollect,
      Effect.map((events) => feedRead(200, Array.from(events))),
      expect(STEPS.feed)
    )
    // A streamed answer to a POST, each event decoded with the schema; not resumed if cut.
    const chat = { method: "POST", body: CHAT, schema: ChatChunk, reconnect: false } as const
    yield* client.sse("/chat", chat).pipe(
      Stream.runCollect,
      Effect.map((events) => chatRead(200, Array.from(events))),
      expect(STEPS.chat)
    )
    // A download read as it arrives, the client reporting its progress against the
    // Content-Length.
    const progress = downloadProgress()
    yield* client.stream("/download", { params: DOWNLOAD, onDownloadProgress: progress.draw }).pipe(
      Stream.runDrain,
      Effect.map(() => downloadRead(200, progress.done())),
      expect(STEPS.download)
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
