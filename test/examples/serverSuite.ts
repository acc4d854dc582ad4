/**
 * The demo server of one Effect line (`server.test.ts` runs it on Effect 3,
 * `test/v4/examples/server.test.ts` on Effect 4), called directly over loopback: login and its
 * cookie, the guards on each route, 404s, product queries read with `parse`, the flaky endpoint,
 * uploads, the streamed routes (`liveSuite.ts`), sessions that survive a restart with the file
 * store (and do not with the memory store), and two instances sharing a real Redis.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REDIS_SERVER, type RedisServer, startRedis } from "../support/redis.js"
import { liveTests } from "./liveSuite.js"
import { type DemoServer, type Line, startDemoServer } from "./processes.js"

interface Reply {
  readonly status: number
  readonly headers: Headers
  // biome-ignore lint/suspicious/noExplicitAny: test replies are read field by field
  readonly body: any
}

const call = async (
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}
): Promise<Reply> => {
  const response = await fetch(url, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  const text = await response.text()
  return {
    status: response.status,
    headers: response.headers,
    body: text ? JSON.parse(text) : null
  }
}

const login = (url: string, email: string, password: string) =>
  call(`${url}/login`, { method: "POST", body: { email, password } })

/**
 * A login sent from another loopback address (`127.0.0.2` and up reach a server on `127.0.0.1`),
 * so that the throttle's `address:` key of one test is not the other tests' `address:127.0.0.1`.
 */
const loginFrom = (
  localAddress: string,
  url: string,
  email: string,
  password: string,
  headers: Record<string, string> = {}
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ email, password })
    const req = request(
      `${url}/login`,
      {
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json", ...headers }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          const responseHeaders = new Headers()
          for (const [name, value] of Object.entries(res.headers)) {
            if (typeof value === "string") responseHeaders.set(name, value)
            else if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v)
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: responseHeaders,
            body: text ? JSON.parse(text) : null
          })
        })
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const as = (id: string) => ({ headers: { "x-session-id": id } })

const hasRedis = existsSync(REDIS_SERVER)

export const describeServer = (line: Line) => {
  const start = (args: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
    startDemoServer(args, env, line)

  describe(`demo server on the Effect ${line} line`, () => {
    let server: DemoServer
    beforeAll(async () => {
      server = await start()
    }, 90_000)
    afterAll(async () => {
      expect(await server.stop()).toBe(0)
    })

    it("logs in: envelope, a fresh 256-bit id, and the same id as an HttpOnly cookie", async () => {
      const first = await login(server.url, "bob@example.com", "bob-secret")
      const second = await login(server.url, "BOB@example.com", "bob-secret")
      expect(first.status).toBe(200)
      expect(first.body).toMatchObject({
        success: true,
        data: { user_id: "u-bob", name: "Bob", user_type: "editor" },
        message: "Welcome, Bob"
      })
      const id: string = first.body.data.session_id
      expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(second.body.data.session_id).not.toBe(id)
      const cookie = first.headers.get("set-cookie") ?? ""
      expect(cookie).toContain(`session_id=${id}`)
      expect(cookie).toMatch(/HttpOnly/)
      expect(cookie).toMatch(/SameSite=Lax/)
      expect(cookie).toMatch(/Path=\//)
    })

    it("refuses a wrong password and an unknown email with the same answer", async () => {
      const wrong = await login(server.url, "bob@example.com", "bob-secreT")
      const unknown = await login(server.url, "mallory@example.com", "bob-secret")
      for (const reply of [wrong, unknown]) {
        expect(reply.status).toBe(401)
        expect(reply.body).toEqual({ error: "Invalid email or password" })
        expect(reply.headers.get("set-cookie")).toBeNull()
      }
      const malformed = await call(`${server.url}/login`, { method: "POST", body: { email: 1 } })
      expect(malformed.status).toBe(400)
    })

    it("accepts the session from the cookie as a browser sends it", async () => {
      const { body } = await login(server.url, "carol@example.com", "carol-secret")
      const me = await call(`${server.url}/me`, {
        headers: { cookie: `session_id=${body.data.session_id}` }
      })
      expect(me.status).toBe(200)
      expect(me.body.data).toMatchObject({ user_id: "u-carol", permissions: ["products:read"] })
    })

    it("guards each route with the pinned answers", async () => {
      const carol = (await login(server.url, "carol@example.com", "carol-secret")).body.data
        .session_id
      const alice = (await login(server.url, "alice@example.com", "alice-secret")).body.data
        .session_id
      expect((await call(`${server.url}/me`)).body).toEqual({ error: "Session ID required" })
      expect((await call(`${server.url}/me`, as("not-a-session"))).body).toEqual({
        error: "Invalid session"
      })
      const forbidden = await call(`${server.url}/products/5`, { method: "DELETE", ...as(carol) })
      expect(forbidden.status).toBe(403)
      expect(forbidden.body).toEqual({ error: "Permission required: products:delete" })
      const stats = await call(`${server.url}/admin/stats`, as(carol))
      expect(stats.body).toEqual({ error: "Insufficient permissions. Required user types: admin" })
      // Administrators pass every permission check.
      const deleted = await call(`${server.url}/products/5`, { method: "DELETE", ...as(alice) })
      expect(deleted.body.data.name).toBe("Noise-Cancelling Headphones")
      expect(
        (await call(`${server.url}/products/5`, { method: "DELETE", ...as(alice) })).status
      ).toBe(404)
      const after = await call(`${server.url}/admin/stats`, as(alice))
      expect(after.body.data.products).toBe(23)
    })

    it("adds a product for an editor, with the next id, and refuses a viewer or a bad body", async () => {
      const bob = (await login(server.url, "bob@example.com", "bob-secret")).body.data.session_id
      const carol = (await login(server.url, "carol@example.com", "carol-secret")).body.data
        .session_id
      const product = { name: "Cable Tray", category: "office", price: 18, stock: 40 }
      const refused = await call(`${server.url}/products`, {
        method: "POST",
        body: product,
        ...as(carol)
      })
      expect(refused.status).toBe(403)
      expect(refused.body).toEqual({ error: "Permission required: products:create" })
      for (const bad of [
        { ...product, name: "" },
        { ...product, stock: 1.5 },
        { ...product, price: -1 },
        { name: "Cable Tray" }
      ]) {
        const reply = await call(`${server.url}/products`, {
          method: "POST",
          body: bad,
          ...as(bob)
        })
        expect(reply.status).toBe(400)
        expect(reply.body.error).toMatch(
          /^Expected a JSON body \{"name", "category", "price", "stock"\}/
        )
      }
      const created = await call(`${server.url}/products`, {
        method: "POST",
        body: product,
        ...as(bob)
      })
      expect(created.status).toBe(201)
      expect(created.body).toMatchObject({ success: true, message: "Created Cable Tray" })
      expect(created.body.data).toEqual({ id: 25, ...product, sale_price: null })
      const removed = await call(`${server.url}/products/25`, { method: "DELETE", ...as(bob) })
      expect(removed.body.message).toBe("Deleted Cable Tray")
    })

    it("answers 404 with an error body to an unknown route or method", async () => {
      for (const [method, path] of [
        ["GET", "/nope"],
        ["GET", "/logout"],
        ["PUT", "/products/3"]
      ] as const) {
        const reply = await call(`${server.url}${path}`, { method })
        expect(reply.status).toBe(404)
        expect(reply.body).toEqual({ error: "Not found" })
      }
    })

    it("revokes the session at logout", async () => {
      const id = (await login(server.url, "bob@example.com", "bob-secret")).body.data.session_id
      const out = await call(`${server.url}/logout`, { method: "POST", ...as(id) })
      expect(out.status).toBe(200)
      expect(out.headers.get("set-cookie")).toMatch(/session_id=;.*Max-Age=0/)
      // a signed-in answer, and the guard's refusal after it, are never cached
      expect(out.headers.get("cache-control")).toBe("no-store")
      const after = await call(`${server.url}/me`, as(id))
      expect(after.body).toEqual({ error: "Invalid session" })
      expect(after.headers.get("cache-control")).toBe("no-store")
      expect((await call(`${server.url}/logout`, { method: "POST", ...as(id) })).status).toBe(401)
    })

    it("locks an account after 5 wrong passwords: 429, the pinned body, Retry-After", async () => {
      // an account that does not exist: the throttle counts it all the same
      const account = `nobody-${Date.now()}@Example.com`
      for (let attempt = 1; attempt <= 5; attempt++) {
        const wrong = await loginFrom("127.0.0.2", server.url, account, "guess")
        expect(wrong.status).toBe(401)
      }
      // the account's key, whatever the address and the email's case
      const locked = await loginFrom("127.0.0.3", server.url, account.toLowerCase(), "guess")
      expect(locked.status).toBe(429)
      expect(locked.body).toEqual({ error: "Too many attempts" })
      const retryAfter = locked.headers.get("retry-after") ?? ""
      expect(retryAfter).toMatch(/^[1-9][0-9]*$/)
      expect(Number(retryAfter)).toBeLessThanOrEqual(15 * 60)
      expect(locked.headers.get("set-cookie")).toBeNull()
      // keys named after Object.prototype's are counted like any other
      const odd = await loginFrom("127.0.0.2", server.url, "__proto__", "guess")
      expect(odd.status).toBe(429) // the address is locked now
    })

    it("clears an account's count when it signs in", async () => {
      const attempts = (from: string, n: number) =>
        Promise.all(
          Array.from({ length: n }, () => loginFrom(from, server.url, "carol@example.com", "guess"))
        )
      expect((await attempts("127.0.0.4", 4)).map((r) => r.status)).toEqual([401, 401, 401, 401])
      const signedIn = await loginFrom("127.0.0.4", server.url, "carol@example.com", "carol-secret")
      expect(signedIn.status).toBe(200)
      // 4 more would lock the account had the count not been cleared (from another address,
      // which has its own count)
      expect((await attempts("127.0.0.5", 4)).map((r) => r.status)).toEqual([401, 401, 401, 401])
      const again = await loginFrom("127.0.0.5", server.url, "carol@example.com", "carol-secret")
      expect(again.status).toBe(200)
    })

    it("rotates the session a login presents: the old id ends, the new one works", async () => {
      const old: string = (await login(server.url, "bob@example.com", "bob-secret")).body.data
        .session_id
      const rotated = await call(`${server.url}/login`, {
        method: "POST",
        body: { email: "bob@example.com", password: "bob-secret" },
        ...as(old)
      })
      expect(rotated.status).toBe(200)
      const id: string = rotated.body.data.session_id
      expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(id).not.toBe(old)
      expect(rotated.headers.get("set-cookie")).toContain(`session_id=${id}`)
      expect((await call(`${server.url}/me`, as(old))).status).toBe(401)
      expect((await call(`${server.url}/me`, as(id))).status).toBe(200)
      // from the cookie too
      const fromCookie = await call(`${server.url}/login`, {
        method: "POST",
        body: { email: "bob@example.com", password: "bob-secret" },
        headers: { cookie: `session_id=${id}` }
      })
      expect(fromCookie.body.data.session_id).not.toBe(id)
      expect((await call(`${server.url}/me`, as(id))).status).toBe(401)
      // another user's session is not rotated into this one: a new session, the other left alone
      const alice = (await login(server.url, "alice@example.com", "alice-secret")).body.data
        .session_id
      const other = await call(`${server.url}/login`, {
        method: "POST",
        body: { email: "bob@example.com", password: "bob-secret" },
        ...as(alice)
      })
      expect(other.status).toBe(200)
      expect((await call(`${server.url}/me`, as(alice))).status).toBe(200)
    })

    it("lists the user's devices, signs one out by handle, then all the others", async () => {
      const signIn = async () =>
        (await login(server.url, "carol@example.com", "carol-secret")).body.data
          .session_id as string
      await call(`${server.url}/logout/all`, { method: "POST", ...as(await signIn()) })
      const [first, second] = [await signIn(), await signIn()]
      const listed = await call(`${server.url}/sessions`, as(second))
      expect(listed.status).toBe(200)
      expect(listed.headers.get("cache-control")).toBe("no-store")
      expect(listed.body.data).toHaveLength(2)
      for (const device of listed.body.data) {
        expect(Object.keys(device).sort()).toEqual([
          "createdAt",
          "current",
          "expiresAt",
          "handle",
          "lastSeenAt"
        ])
        expect(Date.parse(device.expiresAt)).toBeGreaterThan(Date.now())
      }
      // the caller's own device is the current one, and only it
      expect(listed.body.data.map((device: { current: boolean }) => device.current)).toEqual([
        false,
        true
      ])
      const fromFirst = (await call(`${server.url}/sessions`, as(first))).body.data
      expect(fromFirst.map((device: { current: boolean }) => device.current)).toEqual([true, false])
      expect(JSON.stringify(listed.body)).not.toContain(first)
      expect(JSON.stringify(listed.body)).not.toContain(second)
      // oldest first: the first device is the first login's
      const handle: string = listed.body.data[0].handle
      const ended = await call(`${server.url}/sessions/${handle}`, {
        method: "DELETE",
        ...as(second)
      })
      expect(ended.status).toBe(200)
      expect(ended.body.data).toEqual({ ended: true })
      expect((await call(`${server.url}/me`, as(first))).status).toBe(401)
      expect((await call(`${server.url}/me`, as(second))).status).toBe(200)
      const again = await call(`${server.url}/sessions/${handle}`, {
        method: "DELETE",
        ...as(second)
      })
      expect(again.status).toBe(404)
      expect(again.body).toEqual({ error: "Session not found" })
      // another user's handle ends nothing
      const bob = (await login(server.url, "bob@example.com", "bob-secret")).body.data.session_id
      const bobs = (await call(`${server.url}/sessions`, as(bob))).body.data
      const notCarols = await call(`${server.url}/sessions/${bobs[0].handle}`, {
        method: "DELETE",
        ...as(second)
      })
      expect(notCarols.status).toBe(404)
      for (const name of ["__proto__", "constructor", "hasOwnProperty"]) {
        const odd = await call(`${server.url}/sessions/${name}`, {
          method: "DELETE",
          ...as(second)
        })
        expect(odd.status).toBe(404)
      }
      const [third, fourth] = [await signIn(), await signIn()]
      const others = await call(`${server.url}/sessions/others`, { method: "POST", ...as(second) })
      expect(others.status).toBe(200)
      expect(others.body.data).toEqual({ ended: 2 })
      expect((await call(`${server.url}/me`, as(third))).status).toBe(401)
      expect((await call(`${server.url}/me`, as(fourth))).status).toBe(401)
      expect((await call(`${server.url}/me`, as(second))).status).toBe(200)
      expect((await call(`${server.url}/sessions`, as(second))).body.data).toHaveLength(1)
      expect((await call(`${server.url}/sessions`)).status).toBe(401)
    })

    /** A new device of `email`: its session id and refresh token. */
    const device = async (email: string, password: string) => {
      const { body } = await login(server.url, email, password)
      return { id: body.data.session_id as string, token: body.data.refresh_token as string }
    }
    const refresh = (token: unknown, headers: Record<string, string> = {}) =>
      call(`${server.url}/refresh`, { method: "POST", body: { refresh_token: token }, headers })

    /** A refresh token: the user's id (base64url), the device's handle, a 256-bit secret. */
    const TOKEN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/

    it("spends a refresh token for a new session id and the next token", async () => {
      const bob = await device("bob@example.com", "bob-secret")
      expect(bob.token).toMatch(TOKEN)
      expect(bob.token).not.toContain(bob.id)
      const renewed = await refresh(bob.token)
      expect(renewed.status).toBe(200)
      expect(renewed.headers.get("cache-control")).toBe("no-store")
      expect(renewed.body).toMatchObject({ success: true, message: "Session refreshed" })
      const { session_id, refresh_token, refreshes } = renewed.body.data
      expect(session_id).toMatch(/^[A-Za-z0-9_-]{43}$/)
      expect(refresh_token).toMatch(TOKEN)
      expect([bob.id, bob.token]).not.toContain(session_id)
      expect([bob.id, bob.token]).not.toContain(refresh_token)
      // the same device: only the secret changes
      expect(refresh_token.split(".").slice(0, 2)).toEqual(bob.token.split(".").slice(0, 2))
      expect(refreshes).toBeGreaterThanOrEqual(1)
      expect(renewed.headers.get("set-cookie")).toContain(`session_id=${session_id}`)
      expect((await call(`${server.url}/me`, as(session_id))).body.data.user_id).toBe("u-bob")
      // the device's older session has ended: one device, one session
      expect((await call(`${server.url}/me`, as(bob.id))).status).toBe(401)
      // the next one works and counts
      const again = await refresh(refresh_token)
      expect(again.status).toBe(200)
      expect(again.body.data.refreshes).toBeGreaterThan(refreshes)
      const listed = (await call(`${server.url}/sessions`, as(again.body.data.session_id))).body
      expect(JSON.stringify(listed)).not.toContain(again.body.data.refresh_token.split(".")[2])
      expect(JSON.stringify(listed)).not.toContain(again.body.data.refresh_token.split(".")[1])
    })

    it("a spent refresh token presented again is refused and ends its device (reuse)", async () => {
      const bob = await device("bob@example.com", "bob-secret")
      const renewed = await refresh(bob.token)
      expect(renewed.status).toBe(200)
      const { session_id, refresh_token } = renewed.body.data
      // say a thief replays the token the owner has spent (or the owner the thief's)
      const spent = await refresh(bob.token)
      expect(spent.status).toBe(401)
      expect(spent.body).toEqual({ error: "Invalid refresh token" })
      expect(spent.headers.get("set-cookie")).toBeNull()
      // the device is ended: its session and its next token with it
      expect((await call(`${server.url}/me`, as(session_id))).status).toBe(401)
      expect((await refresh(refresh_token)).status).toBe(401)
      // a device's name (its random handle) is only ever seen in its tokens: another secret with
      // it is a token of that device that is not the live one, and ends the device too
      const [other, kept] = [
        await device("bob@example.com", "bob-secret"),
        await device("bob@example.com", "bob-secret")
      ]
      const forged = `${other.token.split(".").slice(0, 2).join(".")}.${"A".repeat(43)}`
      expect((await refresh(forged)).status).toBe(401)
      expect((await call(`${server.url}/me`, as(other.id))).status).toBe(401)
      expect((await refresh(other.token)).status).toBe(401)
      // the user's other devices are left alone
      expect((await call(`${server.url}/me`, as(kept.id))).status).toBe(200)
      expect((await refresh(kept.token)).status).toBe(200)
    })

    it("refuses a refresh token as a session id, a session id as a refresh token, and junk", async () => {
      const carol = await device("carol@example.com", "carol-secret")
      const asSession = await call(`${server.url}/me`, as(carol.token))
      expect(asSession.status).toBe(401)
      expect(asSession.body).toEqual({ error: "Invalid session" })
      const cookie = await call(`${server.url}/me`, {
        headers: { cookie: `session_id=${carol.token}` }
      })
      expect(cookie.status).toBe(401)
      for (const junk of [
        carol.id,
        "",
        "x",
        "__proto__",
        "constructor",
        "A".repeat(43),
        `${carol.token}\r\nSet-Cookie: a=b`,
        `${carol.token.slice(0, 42)}\u0000`,
        carol.token.toLowerCase() === carol.token
          ? carol.token.toUpperCase()
          : carol.token.toLowerCase()
      ]) {
        const reply = await refresh(junk)
        expect(reply.status).toBe(401)
        expect(reply.body).toEqual({ error: "Invalid refresh token" })
      }
      for (const body of [{}, { refresh_token: 1 }, { refresh_token: null }, []]) {
        const reply = await call(`${server.url}/refresh`, { method: "POST", body })
        expect(reply.status).toBe(400)
        expect(reply.body).toEqual({ error: 'Expected a JSON body {"refresh_token"}' })
      }
      // none of it spent Carol's token or ended her session
      expect((await call(`${server.url}/me`, as(carol.id))).status).toBe(200)
      expect((await refresh(carol.token)).status).toBe(200)
    })

    it("a token presented 10 times at once: at most one refresh, and the reuse ends the device", async () => {
      const alice = await device("alice@example.com", "alice-secret")
      const replies = await Promise.all(Array.from({ length: 10 }, () => refresh(alice.token)))
      const won = replies.filter((reply) => reply.status === 200)
      expect(won.length).toBeLessThanOrEqual(1)
      expect(replies.filter((reply) => reply.status === 401).length).toBeGreaterThanOrEqual(9)
      // nothing of the device is left: no session, no token
      expect((await call(`${server.url}/me`, as(alice.id))).status).toBe(401)
      for (const reply of won) {
        expect((await call(`${server.url}/me`, as(reply.body.data.session_id))).status).toBe(401)
        expect((await refresh(reply.body.data.refresh_token)).status).toBe(401)
      }
    })

    it("a rotating login keeps the device and its refresh token, and answers none", async () => {
      const bob = await device("bob@example.com", "bob-secret")
      const rotated = await call(`${server.url}/login`, {
        method: "POST",
        body: { email: "bob@example.com", password: "bob-secret" },
        ...as(bob.id)
      })
      expect(rotated.status).toBe(200)
      expect(rotated.body.data.refresh_token).toBeUndefined()
      const id = rotated.body.data.session_id
      expect((await call(`${server.url}/me`, as(bob.id))).status).toBe(401)
      const devices = (await call(`${server.url}/sessions`, as(id))).body.data
      // the refresh replaces the rotated session: still one session for the device
      const renewed = await refresh(bob.token)
      expect(renewed.status).toBe(200)
      expect((await call(`${server.url}/me`, as(id))).status).toBe(401)
      const after = (await call(`${server.url}/sessions`, as(renewed.body.data.session_id))).body
        .data
      expect(after).toHaveLength(devices.length)
    })

    it("ending a device ends its refresh token: logout, by handle, the others, everywhere", async () => {
      const signIn = () => device("carol@example.com", "carol-secret")
      const carol = await signIn()
      await call(`${server.url}/logout/all`, { method: "POST", ...as(carol.id) })
      expect((await refresh(carol.token)).status).toBe(401)

      const out = await signIn()
      expect((await call(`${server.url}/logout`, { method: "POST", ...as(out.id) })).status).toBe(
        200
      )
      expect((await refresh(out.token)).status).toBe(401)

      const [here, byHandle, other, expired] = [
        await signIn(),
        await signIn(),
        await signIn(),
        await signIn()
      ]
      const listed = (await call(`${server.url}/sessions`, as(here.id))).body.data
      const handle = listed[1].handle // oldest first: byHandle's
      const ended = await call(`${server.url}/sessions/${handle}`, {
        method: "DELETE",
        ...as(here.id)
      })
      expect(ended.status).toBe(200)
      expect((await refresh(byHandle.token)).status).toBe(401)
      // a device whose session has ended (expired) but whose refresh token lives is ended too
      const expiring = await call(`${server.url}/demo/expire`, {
        method: "POST",
        ...as(expired.id)
      })
      expect(expiring.status).toBe(200)
      expect((await call(`${server.url}/me`, as(expired.id))).status).toBe(401)
      const others = await call(`${server.url}/sessions/others`, { method: "POST", ...as(here.id) })
      expect(others.body.data).toEqual({ ended: 1 })
      for (const gone of [other, expired]) {
        expect((await refresh(gone.token)).status).toBe(401)
        expect((await call(`${server.url}/me`, as(gone.id))).status).toBe(401)
      }
      // this device keeps its session and its refresh token
      expect((await call(`${server.url}/me`, as(here.id))).status).toBe(200)
      expect((await refresh(here.token)).status).toBe(200)
    })

    it("/demo/expire ends the session presented and keeps the device: a refresh brings it back", async () => {
      expect((await call(`${server.url}/demo/expire`, { method: "POST" })).status).toBe(401)
      const bob = await device("bob@example.com", "bob-secret")
      const expired = await call(`${server.url}/demo/expire`, { method: "POST", ...as(bob.id) })
      expect(expired.status).toBe(200)
      expect((await call(`${server.url}/me`, as(bob.id))).status).toBe(401)
      const renewed = await refresh(bob.token)
      expect(renewed.status).toBe(200)
      expect((await call(`${server.url}/me`, as(renewed.body.data.session_id))).status).toBe(200)
    })

    it("answers product queries in the wire format, paged in an envelope", async () => {
      const query =
        "category=office&price[lte]=40&sale_price[isNull]=true&sort=-price,name&page=1&limit=2"
      const { status, body } = await call(`${server.url}/products?${query}`)
      expect(status).toBe(200)
      expect(body.data.map((p: { name: string }) => p.name)).toEqual(["Laptop Stand", "Desk Mat"])
      expect(body.meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 })
      expect(body.message).toBe("Browsing as a guest")
    })

    it.each([
      ["name[ilike]=%MUG%", ["Travel Mug"]],
      ["name[like]=%Mug", ["Travel Mug"]],
      ["name[startsWith]=Desk", ["Desk Lamp", "Desk Mat"]],
      ["name[endsWith]=Stand", ["Laptop Stand"]],
      ["category[notIn]=electronics,office,kitchen,stationery", ["Backpack", "Cable Organiser"]],
      ["price[between]=300,500", ["Ergonomic Chair", "Standing Desk"]],
      ["stock[lt]=5&stock[ne]=0", ["Standing Desk"]],
      ["stock=0", ["USB-C Hub", "Bookshelf Speaker"]],
      ["price[gte]=249&sale_price[isNotNull]=true", ["27-inch Monitor", "Standing Desk"]],
      ["category=travel&price[notBetween]=10,20", ["Backpack"]],
      ["search=DESK&price[gt]=100", ["Standing Desk"]]
    ])("filters %s", async (query, names) => {
      const { body } = await call(`${server.url}/products?${query}&sort=id&limit=50`)
      expect(body.data.map((p: { name: string }) => p.name).sort()).toEqual([...names].sort())
    })

    it.each([
      ["price[approx]=1", /unknown operator/],
      ["colour=red", /Unknown field "colour"/],
      ["price=cheap", /"price": must be a number/],
      ["page=0", /"page"/],
      ["limit=500", /limit must be at most 100/],
      ["sort=-secret", /Unknown field "secret"/]
    ])("answers 400 to a malformed query: %s", async (query, message) => {
      const { status, body } = await call(`${server.url}/products?${query}`)
      expect(status).toBe(400)
      expect(Object.keys(body)).toEqual(["error"])
      expect(body.error).toMatch(message)
    })

    it("fails /flaky with 503 twice per key, then reports the attempts, and starts the key over", async () => {
      const url = `${server.url}/flaky?key=direct`
      // twice, as an example run again against the same server
      for (const run of [1, 2]) {
        const statuses = [(await call(url)).status, (await call(url)).status]
        const third = await call(url)
        expect(statuses, `run ${run}`).toEqual([503, 503])
        expect(third.body, `run ${run}`).toEqual({
          success: true,
          data: { attempts: 3 },
          message: "Succeeded on attempt 3"
        })
      }
    })

    it("answers an upload at /files with its fields and files, and refuses what is not multipart", async () => {
      const form = new FormData()
      form.append("title", "Q3 report")
      form.append("file", new Blob(["%PDF-1.7"], { type: "application/pdf" }), "report.pdf")
      const uploaded = await fetch(`${server.url}/files`, { method: "POST", body: form })
      expect(uploaded.status).toBe(200)
      expect(await uploaded.json()).toEqual({
        success: true,
        data: [
          { field: "title", value: "Q3 report" },
          { field: "file", name: "report.pdf", type: "application/pdf", size: 8 }
        ],
        message: "Received 2 parts"
      })
      const json = await call(`${server.url}/files`, { method: "POST", body: { title: "x" } })
      expect(json).toMatchObject({ status: 415, body: { error: "Expected multipart/form-data" } })
      const broken = await fetch(`${server.url}/files`, {
        method: "POST",
        headers: { "content-type": "multipart/form-data; boundary=x" },
        body: "not multipart"
      })
      expect(broken.status).toBe(400)
    })

    liveTests(() => server)
  })

  describe(`session stores across a restart (Effect ${line})`, () => {
    it("the file store keeps sessions, without writing ids to disk", async () => {
      const dir = join(mkdtempSync(join(tmpdir(), "svc-demo-")), "sessions") // created by the store
      const first = await start(["--store", "file", "--dir", dir])
      const { session_id: id, refresh_token: token } = (
        await login(first.url, "bob@example.com", "bob-secret")
      ).body.data
      expect(await first.stop()).toBe(0)

      const files = readdirSync(dir)
      expect(files.length).toBe(2) // the session and the user's index
      for (const file of files) expect(readFileSync(join(dir, file), "utf8")).not.toContain(id)
      // the device's refresh token, in a directory of its own, kept as its hash too
      const tokens = readdirSync(`${dir}-refresh`)
      expect(tokens.length).toBe(2)
      for (const file of tokens) {
        expect(readFileSync(join(`${dir}-refresh`, file), "utf8")).not.toContain(token)
      }

      const second = await start(["--store", "file", "--dir", dir])
      try {
        const me = await call(`${second.url}/me`, as(id))
        expect(me.status).toBe(200)
        expect(me.body.data.user_id).toBe("u-bob")
        const renewed = await call(`${second.url}/refresh`, {
          method: "POST",
          body: { refresh_token: token }
        })
        expect(renewed.status).toBe(200)
      } finally {
        await second.stop()
      }
    }, 90_000)

    it("the memory store forgets them", async () => {
      const first = await start()
      const id = (await login(first.url, "bob@example.com", "bob-secret")).body.data.session_id
      await first.stop()
      const second = await start()
      try {
        expect((await call(`${second.url}/me`, as(id))).status).toBe(401)
      } finally {
        await second.stop()
      }
    }, 90_000)
  })

  if (!hasRedis) console.warn(`Skipping the Redis demo suite: ${REDIS_SERVER} is absent.`)
  describe.skipIf(!hasRedis)(`two instances on one Redis (--store redis, Effect ${line})`, () => {
    let redis: RedisServer
    let a: DemoServer
    let b: DemoServer
    beforeAll(async () => {
      redis = await startRedis()
      const env = { REDIS_URL: redis.url }
      ;[a, b] = await Promise.all([
        start(["--store", "redis"], env),
        start(["--store", "redis"], env)
      ])
    }, 90_000)
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()])
      await redis?.dispose()
    })

    /** `ask()` until it answers something other than 500 (a client reconnecting), at most 10 s. */
    const onceConnected = async (ask: () => ReturnType<typeof call>) => {
      for (let tries = 0; ; tries++) {
        const answer = await ask()
        if (answer.status !== 500 || tries === 100) return answer
        await new Promise((done) => setTimeout(done, 100))
      }
    }
    const meOnceConnected = (url: string, id: string) =>
      onceConnected(() => call(`${url}/me`, as(id)))

    it("a login on A is valid on B; a logout on B is refused on A at once", async () => {
      const id = (await login(a.url, "bob@example.com", "bob-secret")).body.data.session_id
      const onB = await call(`${b.url}/me`, as(id))
      expect(onB.status).toBe(200)
      expect(onB.body.data.user_id).toBe("u-bob")
      expect((await call(`${b.url}/logout`, { method: "POST", ...as(id) })).status).toBe(200)
      const onA = await call(`${a.url}/me`, as(id))
      expect(onA.status).toBe(401)
      expect(onA.body).toEqual({ error: "Invalid session" })
    })

    it("logging out everywhere on B ends the user's sessions from both instances", async () => {
      const first = (await login(a.url, "carol@example.com", "carol-secret")).body.data.session_id
      const second = (await login(b.url, "carol@example.com", "carol-secret")).body.data.session_id
      const bob = (await login(a.url, "bob@example.com", "bob-secret")).body.data.session_id
      const out = await call(`${b.url}/logout/all`, { method: "POST", ...as(second) })
      expect(out.body.data).toEqual({ sessions: 2 })
      expect((await call(`${a.url}/me`, as(first))).status).toBe(401)
      expect((await call(`${a.url}/me`, as(second))).status).toBe(401)
      expect((await call(`${a.url}/me`, as(bob))).status).toBe(200)
    })

    it("a refresh token from A is spent on B; presented again on A it ends the device on both", async () => {
      const refreshOn = (url: string, token: string) =>
        call(`${url}/refresh`, { method: "POST", body: { refresh_token: token } })
      const first = (await login(a.url, "bob@example.com", "bob-secret")).body.data
      const onB = await refreshOn(b.url, first.refresh_token)
      expect(onB.status).toBe(200)
      const { session_id, refresh_token } = onB.body.data
      expect((await call(`${a.url}/me`, as(session_id))).status).toBe(200)
      expect((await refreshOn(a.url, first.refresh_token)).status).toBe(401)
      expect((await call(`${b.url}/me`, as(session_id))).status).toBe(401)
      expect((await refreshOn(b.url, refresh_token)).status).toBe(401)
      // a logout on B ends the device's refresh token on A
      const second = (await login(a.url, "bob@example.com", "bob-secret")).body.data
      const out = await call(`${b.url}/logout`, { method: "POST", ...as(second.session_id) })
      expect(out.status).toBe(200)
      expect((await refreshOn(a.url, second.refresh_token)).status).toBe(401)
    })

    it("the login throttle is shared: 5 wrong passwords on A lock the account on B", async () => {
      const account = `nobody-${Date.now()}@example.com`
      for (let attempt = 1; attempt <= 5; attempt++) {
        expect((await loginFrom("127.0.0.2", a.url, account, "guess")).status).toBe(401)
      }
      const locked = await loginFrom("127.0.0.3", b.url, account, "guess")
      expect(locked.status).toBe(429)
      expect(locked.body).toEqual({ error: "Too many attempts" })
      expect(locked.headers.get("retry-after") ?? "").toMatch(/^[1-9][0-9]*$/)
    })

    it("sessions survive a Redis restart (append-only file on)", async () => {
      const id = (await login(a.url, "bob@example.com", "bob-secret")).body.data.session_id
      await redis.stop()
      await redis.start()
      const [onA, onB] = [await meOnceConnected(a.url, id), await meOnceConnected(b.url, id)]
      expect([onA.status, onB.status]).toEqual([200, 200])
      expect(onA.body.data.user_id).toBe("u-bob")
    }, 30_000)

    it("Redis down: 500 Authentication service unavailable, never 401 or 200; back when it returns", async () => {
      // after the restart above, the login throttle's own connection may still be coming back
      const signedIn = await onceConnected(() => login(a.url, "bob@example.com", "bob-secret"))
      expect(signedIn.status).toBe(200)
      const id = signedIn.body.data.session_id
      await redis.stop()
      try {
        for (const url of [a.url, b.url, a.url]) {
          const me = await call(`${url}/me`, as(id))
          expect(me.status).toBe(500)
          expect(me.body).toEqual({ error: "Authentication service unavailable" })
        }
        const guest = await call(`${a.url}/products?limit=1`, as(id))
        expect(guest.status).toBe(200)
        expect(guest.body.message).toBe("Browsing as a guest")
        // a login cannot store its session: 500, no cookie
        const refused = await login(b.url, "bob@example.com", "bob-secret")
        expect(refused.status).toBe(500)
        expect(refused.body).toEqual({ error: "Session store unavailable" })
        expect(refused.headers.get("set-cookie")).toBeNull()
      } finally {
        await redis.start()
      }
      const back = await meOnceConnected(a.url, id)
      expect(back.status).toBe(200)
    }, 30_000)
  })
}
