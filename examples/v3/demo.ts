/**
 * `npm run demo` on the Effect 3 line (`svc-sdk/v3`; `../demo.ts` is the same on Effect 4): starts
 * the demo server, tells the story of `../story.ts` with the Promise facade (`createSvc`), then as
 * an Effect program (`yield* SvcClient`, see `demo-effect.ts`), each against a fresh server. The
 * two make the same requests with the same options and print the same table: only the code differs.
 * Every step prints its `ApiResponse` and checks what it expected (a refusal it expected reads
 * "refused as expected"); the first surprise ends the demo with exit code 1 and the step's name.
 */
import { pathToFileURL } from "node:url"
import * as Redacted from "effect/Redacted"
import { between, inOp, lte } from "svc-sdk/Query"
import { createSvc } from "svc-sdk/v3"
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
import type { Product } from "../products.js"
import { cookieRequest, makeStory, type Step } from "../steps.js"
import { runStories } from "../stories.js"
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
import { runEffectStory } from "./demo-effect.js"
import { LoginData, RefreshedData } from "./login.js"
import { startServer } from "./server.js"

/** The story, told with the Promise facade: no request ever throws, each resolves to an ApiResponse. */
export const runPromiseStory = async (baseUrl: string): Promise<void> => {
  const { step } = makeStory(`Promise facade: createSvc("${baseUrl}")`)
  const svc = createSvc(baseUrl, { timeout: 5_000 })

  /** Logs in and keeps the session id for the next requests (sent as `X-Session-Id`). */
  const login = async (user: Login) => {
    const { email, password } = user
    const response = await svc.post("/login", { email, password }, { schema: LoginData })
    step(loggedIn(user), response)
    if (!response.success) return ""
    const id = Redacted.value(response.data.session_id)
    await svc.setSessionId(id)
    return id
  }

  const cheap = svc
    .query<Array<Product>>("/products")
    .where("category", inOp(BROWSE.categories))
    .where("price", lte(BROWSE.maxPrice))
    .sort("price", "desc")
    .limit(BROWSE.limit)
  step(STEPS.browse, await cheap.get(), `GET ${cheap.toURL()}`)
  const search = svc
    .query("/products")
    .search(SEARCH.text)
    .where("stock", between(...SEARCH.stock))
    .page(SEARCH.page)
    .limit(SEARCH.limit)
  step(STEPS.search, await search.get(), `GET ${search.toURL()}`)
  step(STEPS.malformed, await svc.get(MALFORMED_QUERY))
  step(STEPS.guestMe, await svc.get("/me"))
  step(STEPS.wrongPassword, await svc.post("/login", WRONG_PASSWORD))

  await login(BOB)
  step(STEPS.bobMe, await svc.get("/me"))
  step(STEPS.bobDeletes, await svc.delete("/products/3"))
  step(STEPS.bobStats, await svc.get("/admin/stats"))
  step(STEPS.bobLogsOut, await svc.post("/logout"))
  step(STEPS.bobRevoked, await svc.get("/me"))

  await login(CAROL)
  step(STEPS.carolDeletes, await svc.delete("/products/4"))

  // Bob's devices: a laptop and a phone, each a client of its own (its session, its refresh token).
  let laptopToken = ""
  let refreshes = 0
  const laptop = createSvc(baseUrl, {
    timeout: 5_000,
    // a 401 for the laptop's session: one refresh, however many requests got one; each is then
    // sent again with the new id
    refreshSession: async (_failed, client) => {
      const body = { refresh_token: laptopToken }
      const renewed = await client.post("/refresh", body, { schema: RefreshedData })
      if (!renewed.success) return null
      laptopToken = Redacted.value(renewed.data.refresh_token)
      refreshes = renewed.data.refreshes
      return Redacted.value(renewed.data.session_id)
    }
  })
  const phone = createSvc(baseUrl, { timeout: 5_000 })
  /** Bob signs in on `device`: its session id, and its refresh token when the login gave one. */
  const signIn = async (device: typeof phone, expected: Step) => {
    const { email, password } = BOB
    const response = await device.post("/login", { email, password }, { schema: LoginData })
    step(expected, response)
    if (!response.success) return { id: "", token: "" }
    await device.setSessionId(Redacted.value(response.data.session_id))
    const token = response.data.refresh_token
    return {
      id: Redacted.value(response.data.session_id),
      token: token === undefined ? "" : Redacted.value(token)
    }
  }
  const onLaptop = await signIn(laptop, DEVICE_STEPS.laptop)
  laptopToken = onLaptop.token
  const onPhone = await signIn(phone, DEVICE_STEPS.phone)
  step(DEVICE_STEPS.devices, await laptop.get("/sessions"))
  await signIn(laptop, DEVICE_STEPS.relogin)
  const before = { includeSession: false, headers: { "X-Session-Id": onLaptop.id } }
  step(DEVICE_STEPS.oldId, await laptop.get("/me", before))
  step(DEVICE_STEPS.endOthers, await laptop.post("/sessions/others"))
  step(DEVICE_STEPS.phoneRefused, await phone.get("/me"))
  const phoneToken = { refresh_token: onPhone.token }
  step(DEVICE_STEPS.phoneRefresh, await phone.post("/refresh", phoneToken))

  // Someone guesses Dave's password from another machine: after 5 tries, locked out for a while.
  const guesser = createSvc(baseUrl, { timeout: 5_000, fetch: fetchFrom(GUESSER_ADDRESS) })
  const guess = { email: GUESSER.email, password: GUESSER.password }
  const guesses = []
  for (let attempt = 0; attempt < GUESSER.attempts; attempt++) {
    guesses.push(await guesser.post("/login", guess))
  }
  step(DEVICE_STEPS.guesses, guessesOutcome(guesses))
  step(DEVICE_STEPS.locked, await guesser.post("/login", guess))

  // The laptop's session ends on the server (in an app, its idle timeout; here a demo-only
  // route), its device kept: five requests at once all get a 401, one refresh renews it.
  step(DEVICE_STEPS.expire, await laptop.post("/demo/expire"))
  const burst = await Promise.all(Array.from({ length: BURST }, () => laptop.get("/me")))
  step(DEVICE_STEPS.burst, burstOutcome(burst, refreshes))
  step(DEVICE_STEPS.laptopOut, await laptop.post("/logout"))
  await laptop.clearSession()
  const laptopRefresh = { refresh_token: laptopToken }
  step(DEVICE_STEPS.laptopRefresh, await laptop.post("/refresh", laptopRefresh))

  const alice = await login(ALICE)
  step(STEPS.aliceStats, await svc.get("/admin/stats"))
  // Her browser sends her session cookie by itself, from another site's page too.
  const browser = createSvc(baseUrl, { includeSession: false, timeout: 5_000 })
  const forged = { headers: cookieRequest(alice, true) }
  step(STEPS.crossSite, await browser.delete("/products/5", forged))
  const own = { headers: cookieRequest(alice, false) }
  step(STEPS.sameSite, await browser.delete("/products/5", own))

  // A GET is retried on timeout, and on 503.
  step(STEPS.slow, await svc.get("/slow", { params: { ms: SLOW.ms }, timeout: SLOW.timeout }))
  step(STEPS.flaky, await svc.get("/flaky", { params: FLAKY }))

  // Alice's live feed: `for await` reads the events across the dropped connection; the loop ends
  // when the stream does, without throwing, and `closed` says how.
  const feed = await svc.sse("/events", { params: FEED, reconnect: { attempts: 3 } })
  if (!feed.success) step(STEPS.feed, feed)
  else {
    const events = []
    for await (const event of feed.data) events.push(event)
    const end = await feed.data.closed
    step(STEPS.feed, end.success ? feedRead(feed.status, events) : end)
  }
  // A streamed answer to a POST, each event decoded with the schema; not resumed if cut.
  const chat = await svc.sse("/chat", {
    method: "POST",
    body: CHAT,
    schema: ChatChunk,
    reconnect: false
  })
  if (!chat.success) step(STEPS.chat, chat)
  else {
    const events = []
    for await (const event of chat.data) events.push(event)
    const end = await chat.data.closed
    step(STEPS.chat, end.success ? chatRead(chat.status, events) : end)
  }
  // A download read as it arrives, the client reporting its progress against the Content-Length.
  const progress = downloadProgress()
  const file = await svc.stream("/download", {
    params: DOWNLOAD,
    onDownloadProgress: progress.draw
  })
  if (!file.success) step(STEPS.download, file)
  else {
    const reader = file.data.getReader()
    while (!(await reader.read()).done) {
      // the bytes are only counted, by the client
    }
    step(STEPS.download, downloadRead(file.status, progress.done()))
  }
  await svc.clearSession()
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await runStories({ promise: runPromiseStory, effect: runEffectStory }, startServer)
}
