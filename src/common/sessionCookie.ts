/**
 * `setSessionCookie` and `clearSessionCookie` of both lines (SPEC 6.6): dual (data-first, and
 * data-last for `pipe`), the options and the id checked when they are given — in the data-last
 * form too, before any response — and the cookie set with the line's own cookie API
 * (`AuthDialect.setCookie`).
 */
import * as Redacted from "effect/Redacted"
import {
  cookieValue,
  expiredCookie,
  type SessionCookie,
  type SessionCookieOptionsOf,
  sessionCookie
} from "../core/sessionCookie.js"
import type { AuthDialect } from "./dialect.js"

type Options = SessionCookieOptionsOf<unknown> | undefined
type Id = Redacted.Redacted<string> | string

/** The two functions of a line; each line's `Auth/SessionCookie.ts` gives them their types. */
export const sessionCookiesOf = <Session>(line: AuthDialect<Session>) => {
  const setOn =
    (cookie: SessionCookie, value: string) =>
    (response: unknown): unknown =>
      line.setCookie(response, cookie.name, value, cookie.options)

  const setting = (id: Id, options: Options) => {
    const cookie = sessionCookie(line.client.durationMillis, "setSessionCookie", options)
    return setOn(
      cookie,
      cookieValue("setSessionCookie", Redacted.isRedacted(id) ? Redacted.value(id) : id)
    )
  }

  const clearing = (options: Options) =>
    setOn(
      expiredCookie(sessionCookie(line.client.durationMillis, "clearSessionCookie", options)),
      ""
    )

  return {
    setSessionCookie: (...args: ReadonlyArray<unknown>): unknown =>
      line.isResponse(args[0])
        ? setting(args[1] as Id, args[2] as Options)(args[0])
        : setting(args[0] as Id, args[1] as Options),
    clearSessionCookie: (...args: ReadonlyArray<unknown>): unknown =>
      line.isResponse(args[0])
        ? clearing(args[1] as Options)(args[0])
        : clearing(args[0] as Options)
  }
}
