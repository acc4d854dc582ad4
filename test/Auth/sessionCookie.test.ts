/**
 * `setSessionCookie` / `clearSessionCookie` (SPEC 6.6): the `Set-Cookie` a response gets, both call
 * forms, and the options checked as they are given — nothing a caller passes becomes an attribute
 * of its own. Shared: run on both Effect lines (lineKit.ts). The browser's side:
 * test/browser/sessionCookie.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import {
  clearSessionCookie,
  type SessionCookieOptions,
  setSessionCookie
} from "../../src/v3/Auth/index.js"
import { HttpServerResponse, toWebHandler } from "./lineKit.js"

const ID = "abcDEF0123456789_-abcDEF0123456789_-abcDEF0"

/** The `Set-Cookie` headers of a response, as a server sends them. */
const setCookies = async (response: HttpServerResponse.HttpServerResponse) => {
  const handler = toWebHandler(Effect.succeed(response))
  return (await handler(new Request("http://localhost/"))).headers.getSetCookie()
}

const empty = () => HttpServerResponse.empty({ status: 204 })

describe("setSessionCookie", () => {
  it("HttpOnly, Secure, SameSite=Lax, Path=/ and no Max-Age by default; both call forms", async () => {
    const expected = [`session_id=${ID}; Path=/; HttpOnly; Secure; SameSite=Lax`]
    expect(await setCookies(setSessionCookie(empty(), ID))).toEqual(expected)
    expect(await setCookies(setSessionCookie(empty(), Redacted.make(ID)))).toEqual(expected)
    expect(await setCookies(empty().pipe(setSessionCookie(Redacted.make(ID))))).toEqual(expected)
    expect(await setCookies(setSessionCookie(ID)(empty()))).toEqual(expected)
  })

  it("persistent: 30 days for true, or the duration given; the other options", async () => {
    expect(await setCookies(setSessionCookie(empty(), ID, { persistent: true }))).toEqual([
      `session_id=${ID}; Max-Age=2592000; Path=/; HttpOnly; Secure; SameSite=Lax`
    ])
    expect(await setCookies(setSessionCookie(empty(), ID, { persistent: "2 hours" }))).toEqual([
      `session_id=${ID}; Max-Age=7200; Path=/; HttpOnly; Secure; SameSite=Lax`
    ])
    // past what a browser keeps (400 days), the cookie asks for that: no duration too long to
    // write (1e24 seconds once became "1e+24 seconds", which Duration cannot read)
    const tooLong: ReadonlyArray<SessionCookieOptions["persistent"]> = [
      "401 days",
      "10000 weeks",
      1e24 * 1000,
      1e300
    ]
    for (const persistent of tooLong) {
      expect(await setCookies(setSessionCookie(empty(), ID, { persistent }))).toEqual([
        `session_id=${ID}; Max-Age=34560000; Path=/; HttpOnly; Secure; SameSite=Lax`
      ])
    }
    expect(await setCookies(setSessionCookie(empty(), ID, { persistent: "400 days" }))).toEqual([
      `session_id=${ID}; Max-Age=34560000; Path=/; HttpOnly; Secure; SameSite=Lax`
    ])
    expect(await setCookies(setSessionCookie(empty(), ID, { persistent: false }))).toEqual([
      `session_id=${ID}; Path=/; HttpOnly; Secure; SameSite=Lax`
    ])
    const options: SessionCookieOptions = {
      name: "sid",
      sameSite: "strict",
      path: "/app",
      domain: "example.com",
      secure: false
    }
    expect(await setCookies(setSessionCookie(empty(), ID, options))).toEqual([
      `sid=${ID}; Domain=example.com; Path=/app; HttpOnly; SameSite=Strict`
    ])
    // the prefixes, with what they promise
    expect(await setCookies(setSessionCookie(empty(), ID, { name: "__Host-sid" }))).toEqual([
      `__Host-sid=${ID}; Path=/; HttpOnly; Secure; SameSite=Lax`
    ])
    expect(
      await setCookies(setSessionCookie(empty(), ID, { name: "__Secure-sid", path: "/app" }))
    ).toEqual([`__Secure-sid=${ID}; Path=/app; HttpOnly; Secure; SameSite=Lax`])
    expect(
      await setCookies(setSessionCookie(empty(), ID, { name: "__Http-sid", path: "/app" }))
    ).toEqual([`__Http-sid=${ID}; Path=/app; HttpOnly; Secure; SameSite=Lax`])
    expect(
      await setCookies(setSessionCookie(empty(), ID, { sameSite: "none", persistent: "1 day" }))
    ).toEqual([`session_id=${ID}; Max-Age=86400; Path=/; HttpOnly; Secure; SameSite=None`])
  })

  it("an id with cookie separators stays one value: encoded, never an attribute", async () => {
    const [cookie] = await setCookies(setSessionCookie(empty(), "s;Domain=evil.example,x"))
    expect(cookie).toBe(
      "session_id=s%3BDomain%3Devil.example%2Cx; Path=/; HttpOnly; Secure; SameSite=Lax"
    )
  })

  it("refuses bad options with a TypeError naming the option, in both call forms", () => {
    const bad: ReadonlyArray<readonly [unknown, RegExp]> = [
      [{ name: "a;b" }, /options\.name/],
      [{ name: "a b" }, /options\.name/],
      [{ name: "sid\r\nSet-Cookie: admin=1" }, /options\.name/],
      [{ name: "" }, /options\.name/],
      [{ name: "a=b" }, /options\.name/],
      [{ domain: "example.com; Secure" }, /options\.domain/],
      [{ domain: "example.com,evil.example" }, /options\.domain/],
      [{ domain: "exa mple.com" }, /options\.domain/],
      [{ domain: "example.com\u0000" }, /options\.domain/],
      [{ path: "/; Domain=evil.example" }, /options\.path/],
      [{ path: "/a,b" }, /options\.path/],
      [{ path: "/a b" }, /options\.path/],
      [{ path: "/a\u007f" }, /options\.path/],
      [{ path: "relative" }, /options\.path/],
      [{ secure: "yes" }, /options\.secure/],
      [{ sameSite: "None" }, /options\.sameSite/],
      [{ sameSite: "none", secure: false }, /sameSite "none" needs secure: true/],
      [{ name: "__Secure-sid", secure: false }, /options\.name "__Secure-sid" needs secure: true/],
      [{ name: "__host-sid", secure: false }, /options\.name "__host-sid" needs secure: true/],
      [{ name: "__Host-sid", domain: "example.com" }, /needs path "\/" and no domain/],
      [{ name: "__Host-sid", path: "/app" }, /needs path "\/" and no domain/],
      [{ name: "__Http-sid", secure: false }, /options\.name "__Http-sid" needs secure: true/],
      [{ name: "__Host-Http-sid", secure: false }, /"__Host-Http-sid" needs secure: true/],
      [{ name: "__Host-Http-sid", path: "/app" }, /refuse a __Host-Http- cookie with either/],
      [{ persistent: "forever" }, /options\.persistent/],
      [{ persistent: -1 }, /options\.persistent/],
      ["lax", /options must be an object/]
    ]
    for (const [options, message] of bad) {
      expect(() => setSessionCookie(empty(), ID, options as never), String(options)).toThrow(
        message
      )
      // checked when given, before any response
      expect(() => setSessionCookie(ID, options as never)).toThrow(message)
      expect(() => clearSessionCookie(options as never)).toThrow(message)
    }
  })

  it("refuses an id that is not a session id, without quoting it", () => {
    for (const id of ["", "has space", "tab\there", "é", "x".repeat(513)]) {
      const attempt = () => setSessionCookie(empty(), Redacted.make(id))
      expect(attempt).toThrow(TypeError)
      try {
        attempt()
      } catch (error) {
        if (id.length > 0) expect(String(error)).not.toContain(id)
      }
    }
  })
})

describe("clearSessionCookie", () => {
  it("an expired cookie of the same name, path and domain; both call forms", async () => {
    const expected = [
      "session_id=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax"
    ]
    expect(await setCookies(clearSessionCookie(empty()))).toEqual(expected)
    expect(await setCookies(empty().pipe(clearSessionCookie()))).toEqual(expected)
    expect(
      await setCookies(
        clearSessionCookie(empty(), {
          name: "sid",
          path: "/app",
          domain: "example.com",
          persistent: true
        })
      )
    ).toEqual([
      "sid=; Max-Age=0; Domain=example.com; Path=/app; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax"
    ])
  })
})
