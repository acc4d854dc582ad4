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
import { ChatChunk } from "../live.js"
import type { Product } from "../products.js"
import { cookieRequest, makeStory } from "../steps.js"
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
import { LoginData } from "./login.js"
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
  // A download read as it arrives, its progress drawn against the Content-Length.
  const file = await svc.stream("/download", { params: DOWNLOAD })
  if (!file.success) step(STEPS.download, file)
  else {
    const progress = downloadProgress(Number(file.headers?.["content-length"] ?? Number.NaN))
    const reader = file.data.getReader()
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      progress.chunk(chunk.value)
    }
    step(STEPS.download, downloadRead(file.status, progress.done()))
  }
  await svc.clearSession()
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await runStories({ promise: runPromiseStory, effect: runEffectStory }, startServer)
}
