/**
 * `npm run demo`: starts the demo server, walks through a story with the Promise facade
 * (`createSvc`), then the same story as an Effect program (`yield* SvcClient`, see
 * `demo-effect.ts`), each against a fresh server. Every step prints its `ApiResponse` and checks
 * what it expected; the first surprise ends the demo with exit code 1 and the step's name.
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
import { createSvc } from "svc-sdk"
import { between, inOp, lte } from "svc-sdk/Query"
import { runEffectStory } from "./demo-effect.js"
import type { Product } from "./products.js"
import { startServer } from "./server.js"
import { dataHas, makeStory, StepFailed, totalIs } from "./steps.js"

interface LoginData {
  readonly user_id: string
  readonly name: string
  readonly user_type: string
  readonly session_id: string
}

/** The story, told with the Promise facade: no request ever throws, each resolves to an ApiResponse. */
export const runPromiseStory = async (baseUrl: string): Promise<void> => {
  const { step } = makeStory(`Promise facade: createSvc("${baseUrl}")`)
  const svc = createSvc(baseUrl, { timeout: 5_000 })

  const cheap = svc
    .query<Array<Product>>("/products")
    .where("category", inOp(["electronics", "office"]))
    .where("price", lte(50))
    .sort("price", "desc")
    .limit(4)
  step("Guest browses with filters", `GET ${cheap.toURL()}`, await cheap.get(), {
    status: 200,
    check: totalIs(7)
  })

  const search = svc
    .query("/products")
    .search("desk")
    .where("stock", between(1, 100))
    .page(2)
    .limit(2)
  step("Guest searches, page 2", `GET ${search.toURL()}`, await search.get(), {
    status: 200,
    check: totalIs(3)
  })

  step(
    "Malformed query is refused",
    "GET /products?price[approx]=10",
    await svc.get("/products?price[approx]=10"),
    {
      status: 400,
      code: "HTTP_ERROR"
    }
  )

  step("Guest asks who they are", "GET /me", await svc.get("/me"), {
    status: 401,
    code: "HTTP_ERROR"
  })

  const wrong = await svc.post("/login", { email: "bob@example.com", password: "guess" })
  step("Login with a wrong password", "POST /login", wrong, { status: 401, code: "HTTP_ERROR" })

  const bob = await svc.post<LoginData>("/login", {
    email: "bob@example.com",
    password: "bob-secret"
  })
  step("Bob (editor) logs in", "POST /login", bob, {
    status: 200,
    check: dataHas("user_type", "editor")
  })
  if (bob.data) await svc.setSessionId(bob.data.session_id)

  step("Bob asks who he is", "GET /me", await svc.get("/me"), {
    status: 200,
    check: dataHas("user_id", "u-bob")
  })
  step("Bob deletes a product", "DELETE /products/3", await svc.delete("/products/3"), {
    status: 200,
    check: dataHas("name", "USB-C Hub")
  })
  step("Bob opens admin stats", "GET /admin/stats", await svc.get("/admin/stats"), {
    status: 403,
    code: "HTTP_ERROR"
  })
  step("Bob logs out", "POST /logout", await svc.post("/logout"), { status: 200 })
  // The client still holds the revoked id: the server must now refuse it.
  step("Bob's old session is rejected", "GET /me", await svc.get("/me"), {
    status: 401,
    code: "HTTP_ERROR"
  })

  const carol = await svc.post<LoginData>("/login", {
    email: "carol@example.com",
    password: "carol-secret"
  })
  step("Carol (viewer) logs in", "POST /login", carol, { status: 200 })
  if (carol.data) await svc.setSessionId(carol.data.session_id)
  step("Carol deletes a product", "DELETE /products/4", await svc.delete("/products/4"), {
    status: 403,
    code: "HTTP_ERROR"
  })

  const alice = await svc.post<LoginData>("/login", {
    email: "alice@example.com",
    password: "alice-secret"
  })
  step("Alice (admin) logs in", "POST /login", alice, { status: 200 })
  if (alice.data) await svc.setSessionId(alice.data.session_id)
  step("Alice opens admin stats", "GET /admin/stats", await svc.get("/admin/stats"), {
    status: 200,
    check: dataHas("products", 23)
  })

  const slow = await svc.get("/slow", { params: { ms: 1_000 }, timeout: 200 })
  step("Slow answer times out (3 tries)", "GET /slow?ms=1000 · timeout 200 ms", slow, {
    status: 0,
    code: "TIMEOUT"
  })
  const flaky = await svc.get("/flaky", { params: { key: "promise-story", failures: 2 } })
  step("503 twice, the retry succeeds", "GET /flaky?key=promise-story", flaky, {
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
