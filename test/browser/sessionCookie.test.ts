/**
 * The session cookie in Debian's Chromium (SPEC 6.6), on each Effect line: a real Effect HTTP server
 * sets it at login with `setSessionCookie`, the browser sends it back on the next request (the
 * guards read it), no script of the page sees it (`HttpOnly`), and `clearSessionCookie` at logout
 * ends it. Shared: the Effect 4 run puts its own binding in place (lineKit.ts).
 *
 * Chromium ends before its server (the scope inside the server's layer): a socket Chromium has
 * opened ahead of a request (a preconnect) holds Node's `server.close` until the server's header
 * timeout, a minute or more, so a server closed first could outlast the test.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Browser } from "playwright-core"
import {
  CurrentUser,
  clearSessionCookie,
  requireAuth,
  SessionStore,
  SessionValidator,
  setSessionCookie
} from "../../src/v3/Auth/index.js"
import {
  HttpServer,
  HttpServerResponse,
  json,
  type Route,
  ServerLayer,
  serveRoutes
} from "../Auth/lineKit.js"
import { answered, CHROMIUM, hasChromium, launchChromium } from "./chromium.js"

if (!hasChromium) console.warn(`Skipping the browser cookie suite: ${CHROMIUM} is absent.`)

/** What the page saw, step by step. */
interface Seen {
  readonly login: number
  readonly cookieAfterLogin: string
  readonly me: string
  readonly logout: number
  readonly meAfterLogout: number
}

describe.skipIf(!hasChromium)("the session cookie in Chromium", () => {
  it.live(
    "set at login, sent back by the browser, hidden from scripts, ended at logout",
    () =>
      Effect.gen(function* () {
        const sessions = yield* Effect.provide(SessionStore, SessionStore.layerMemory())
        const validator = SessionStore.validator.pipe(
          Layer.provide(Layer.succeed(SessionStore, sessions))
        )
        const routes: ReadonlyArray<Route> = [
          {
            method: "GET",
            path: "/",
            handler: Effect.succeed(
              HttpServerResponse.text("<!doctype html><title>cookie</title>", {
                contentType: "text/html"
              })
            )
          },
          {
            method: "POST",
            path: "/login",
            handler: Effect.map(Effect.orDie(sessions.create({ user_id: "u-browser" })), (id) =>
              json({ ok: true }).pipe(setSessionCookie(id))
            )
          },
          {
            method: "GET",
            path: "/me",
            handler: Effect.map(CurrentUser, (user) => json({ user_id: user.user_id })).pipe(
              requireAuth()
            )
          },
          {
            method: "POST",
            path: "/logout",
            handler: Effect.gen(function* () {
              const user = yield* CurrentUser
              yield* Effect.orDie(sessions.revoke(user.session_id))
              return clearSessionCookie(HttpServerResponse.empty({ status: 204 }))
            }).pipe(requireAuth())
          }
        ]
        yield* serveRoutes(routes, validator)
        const server = yield* HttpServer.HttpServer
        const address = server.address as { readonly port: number }
        // localhost is a secure context: Chromium keeps a Secure cookie it gets over http there
        const origin = `http://localhost:${address.port}`
        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => launchChromium()),
          (opened: Browser) => Effect.promise(() => answered("closing Chromium", opened.close()))
        )
        const context = yield* Effect.promise(() => answered("a new context", browser.newContext()))
        const page = yield* Effect.promise(() => answered("a new page", context.newPage()))
        yield* Effect.promise(() => page.goto(`${origin}/`))
        const seen: Seen = yield* Effect.promise(() =>
          answered(
            "the page's requests",
            page.evaluate(async () => {
              const login = (await fetch("/login", { method: "POST" })).status
              const cookieAfterLogin = document.cookie
              const me = await (await fetch("/me")).text()
              const logout = (await fetch("/logout", { method: "POST" })).status
              const meAfterLogout = (await fetch("/me")).status
              return { login, cookieAfterLogin, me, logout, meAfterLogout }
            })
          )
        )
        const jar = yield* Effect.promise(() => answered("the cookie jar", context.cookies()))
        expect(seen).toEqual({
          login: 200,
          cookieAfterLogin: "",
          me: JSON.stringify({ user_id: "u-browser" }),
          logout: 204,
          meAfterLogout: 401
        })
        // cleared: the browser holds no session cookie any more
        expect(jar.filter((cookie) => cookie.name === "session_id")).toEqual([])
      }).pipe(Effect.scoped, Effect.provide(ServerLayer)),
    60_000
  )

  it.live(
    "the browser keeps it as HttpOnly, Secure, SameSite=Lax, for the browser session only",
    () =>
      Effect.gen(function* () {
        const routes: ReadonlyArray<Route> = [
          {
            method: "GET",
            path: "/login",
            handler: Effect.succeed(json({ ok: true }).pipe(setSessionCookie("s-browser-1")))
          },
          {
            method: "GET",
            path: "/remember",
            handler: Effect.succeed(
              json({ ok: true }).pipe(
                setSessionCookie("s-browser-2", { name: "remembered", persistent: "2 days" })
              )
            )
          }
        ]
        yield* serveRoutes(routes, SessionValidator.memory({}))
        const server = yield* HttpServer.HttpServer
        const origin = `http://localhost:${(server.address as { readonly port: number }).port}`
        const browser = yield* Effect.acquireRelease(
          Effect.promise(() => launchChromium()),
          (opened: Browser) => Effect.promise(() => answered("closing Chromium", opened.close()))
        )
        const context = yield* Effect.promise(() => answered("a new context", browser.newContext()))
        const page = yield* Effect.promise(() => answered("a new page", context.newPage()))
        yield* Effect.promise(() => page.goto(`${origin}/login`))
        yield* Effect.promise(() => page.goto(`${origin}/remember`))
        const jar = yield* Effect.promise(() => answered("the cookie jar", context.cookies()))
        const session = jar.find((cookie) => cookie.name === "session_id")
        const remembered = jar.find((cookie) => cookie.name === "remembered")
        expect(session).toMatchObject({
          value: "s-browser-1",
          path: "/",
          httpOnly: true,
          secure: true,
          sameSite: "Lax",
          expires: -1
        })
        const left = (remembered?.expires ?? 0) - Date.now() / 1000
        expect(left).toBeGreaterThan(2 * 86_400 - 60)
        expect(left).toBeLessThanOrEqual(2 * 86_400)
      }).pipe(Effect.scoped, Effect.provide(ServerLayer)),
    60_000
  )
})
