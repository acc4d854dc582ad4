/**
 * `npm run demo`: starts the demo server, walks through a story with the Promise facade
 * (`createSvc`), then the same story as an Effect program (`yield* SvcClient`, see
 * `demo-effect.ts`), each against a fresh server. The two make the same requests with the same
 * options and print the same table: only the code differs. Every step prints its `ApiResponse` and
 * checks what it expected (a refusal it expected reads "refused as expected"); the first surprise
 * ends the demo with exit code 1 and the step's name.
 *
 *   npm run demo                # both stories
 *   npm run demo -- --promise   # only the Promise facade
 *   npm run demo -- --effect    # only the Effect program
 */
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import { between, inOp, lte } from "svc-sdk/Query"
import { createSvc } from "svc-sdk/v3"
import { runEffectStory } from "./demo-effect.js"
import type { Product } from "./products.js"
import { startServer } from "./server.js"
import {
  cookieRequest,
  dataHas,
  errorIs,
  LoginData,
  makeStory,
  StepFailed,
  totalIs
} from "./steps.js"

/** The story, told with the Promise facade: no request ever throws, each resolves to an ApiResponse. */
export const runPromiseStory = async (baseUrl: string): Promise<void> => {
  const { step } = makeStory(`Promise facade: createSvc("${baseUrl}")`)
  const svc = createSvc(baseUrl, { timeout: 5_000 })

  /** Logs in and keeps the session id for the next requests (sent as `X-Session-Id`). */
  const login = async (who: string, email: string, password: string) => {
    const response = await svc.post("/login", { email, password }, { schema: LoginData })
    step(`${who} logs in`, "POST /login", response, { status: 200 })
    if (!response.success) return ""
    const id = Redacted.value(response.data.session_id)
    await svc.setSessionId(id)
    return id
  }

  const cheap = svc
    .query<Array<Product>>("/products")
    .where("category", inOp(["electronics", "office"]))
    .where("price", lte(50))
    .sort("price", "desc")
    .limit(4)
  const found = await cheap.get()
  step("Guest browses with filters", `GET ${cheap.toURL()}`, found, {
    status: 200,
    check: totalIs(7)
  })

  const search = svc
    .query("/products")
    .search("desk")
    .where("stock", between(1, 100))
    .page(2)
    .limit(2)
  const page = await search.get()
  step("Guest searches, page 2", `GET ${search.toURL()}`, page, { status: 200, check: totalIs(3) })

  const malformed = await svc.get("/products?price[approx]=10")
  step("Malformed query is refused", "GET /products?price[approx]=10", malformed, { status: 400 })
  step("Guest asks who they are", "GET /me", await svc.get("/me"), { status: 401 })
  const wrong = await svc.post("/login", { email: "bob@example.com", password: "guess" })
  step("Login with a wrong password", "POST /login", wrong, { status: 401 })

  await login("Bob (editor)", "bob@example.com", "bob-secret")
  const me = await svc.get("/me")
  step("Bob asks who he is", "GET /me", me, { status: 200, check: dataHas("user_id", "u-bob") })
  const deleted = await svc.delete("/products/3")
  step("Bob deletes a product", "DELETE /products/3", deleted, {
    status: 200,
    check: dataHas("name", "USB-C Hub")
  })
  step("Bob opens admin stats", "GET /admin/stats", await svc.get("/admin/stats"), { status: 403 })
  step("Bob logs out", "POST /logout", await svc.post("/logout"), { status: 200 })
  // The client still holds the revoked id: the server must now refuse it.
  step("Bob's old session is rejected", "GET /me", await svc.get("/me"), { status: 401 })

  await login("Carol (viewer)", "carol@example.com", "carol-secret")
  const refused = await svc.delete("/products/4")
  step("Carol deletes a product", "DELETE /products/4", refused, { status: 403 })

  const alice = await login("Alice (admin)", "alice@example.com", "alice-secret")
  const stats = await svc.get("/admin/stats")
  step("Alice opens admin stats", "GET /admin/stats", stats, {
    status: 200,
    check: dataHas("products", 23)
  })

  // Her browser also holds the session as a cookie, which it sends by itself, even with a request
  // another site's page makes. The guards refuse such a request when it changes state, before the
  // session is looked up; from her own page it goes through.
  const browser = createSvc(baseUrl, { includeSession: false, timeout: 5_000 })
  const forged = await browser.delete("/products/5", { headers: cookieRequest(alice, true) })
  step("Cross-site delete, her cookie", "DELETE /products/5 · from evil.example", forged, {
    status: 403,
    check: errorIs("Cross-site request refused")
  })
  const own = await browser.delete("/products/5", { headers: cookieRequest(alice, false) })
  step("Same-site delete, her cookie", "DELETE /products/5 · from her page", own, {
    status: 200
  })

  // A GET is retried on timeout: 3 tries of 200 ms each (with backoff between), then TIMEOUT.
  const slow = await svc.get("/slow", { params: { ms: 1_000 }, timeout: 200 })
  step("Slow answer times out (3 tries)", "GET /slow?ms=1000 · timeout 200 ms", slow, {
    status: 0,
    code: "TIMEOUT"
  })
  // The server fails twice with 503; the client's retry makes the third attempt succeed.
  const flaky = await svc.get("/flaky", { params: { key: "story", failures: 2 } })
  step("503 twice, the retry succeeds", "GET /flaky?key=story", flaky, {
    status: 200,
    check: dataHas("attempts", 3)
  })
  await svc.clearSession()
}

const STORIES = {
  promise: runPromiseStory,
  effect: async (baseUrl: string) => {
    const exit = await Effect.runPromiseExit(runEffectStory(baseUrl))
    if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
  }
}

/** Runs each chosen story against a fresh server; exit code 1 names the step that went wrong. */
const main = async () => {
  const { values } = parseArgs({
    options: { promise: { type: "boolean" }, effect: { type: "boolean" } }
  })
  const chosen =
    values.promise || values.effect
      ? (Object.keys(STORIES) as Array<keyof typeof STORIES>).filter((name) => values[name])
      : (["promise", "effect"] as const)
  for (const name of chosen) {
    const server = await startServer()
    try {
      await STORIES[name](server.url)
    } finally {
      await server.close()
    }
  }
  console.log("\nEvery step answered as expected.")
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((error: unknown) => {
    console.error(`\n✗ ${error instanceof StepFailed ? error.message : String(error)}`)
    process.exitCode = 1
  })
}
