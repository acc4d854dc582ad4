/**
 * Property: whatever the request carries (missing, empty, oversize, whitespace, control-character,
 * unknown or known ids, in header, cookie and query), a `requireAuth` handler is reached exactly
 * when the first present id is well-formed and known to the validator, and then with its user.
 * Shared: run on both Effect lines (lineKit.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import fc from "fast-check"
import { CurrentUser, requireAuth } from "../../src/v3/Auth/index.js"
import {
  call,
  Headers,
  HttpServerRequest,
  HttpServerResponse,
  json,
  makeProbe,
  probeValidator,
  requestOf,
  SESSIONS,
  ServerLayer,
  serve
} from "./lineKit.js"

const known = Object.keys(SESSIONS)

/** Any kind of value a client might put where a session id goes. */
const anyValue = (safeForHttpHeader: boolean): fc.Arbitrary<string | undefined> => {
  const printable = fc.stringMatching(/^[!-~]{1,40}$/)
  const special = safeForHttpHeader
    ? fc.constantFrom(" ", "\t")
    : fc.constantFrom(
        " ",
        "\t",
        "\n",
        "\r",
        "\u0000",
        "\u0001",
        "\u001f",
        "\u007f",
        "\u0085",
        "\u009b",
        "\u00a0",
        "\u00e9",
        "\u2028"
      )
  return fc.oneof(
    fc.constant(undefined),
    fc.constant(""),
    fc.constantFrom(...known),
    printable,
    fc.stringMatching(/^[A-Za-z0-9_-]{513,600}$/),
    fc.stringMatching(/^[A-Za-z0-9_-]{500,512}$/),
    fc
      .tuple(fc.constantFrom(...known), special, fc.nat())
      .map(([id, char, at]) => id.slice(0, at % id.length) + char + id.slice(at % id.length)),
    safeForHttpHeader ? printable : fc.string({ maxLength: 30, unit: "grapheme" })
  )
}

interface Sample {
  readonly header: string | undefined
  readonly cookie: string | undefined
  readonly query: string | undefined
}

const sample = (safeForHttpHeader: boolean): fc.Arbitrary<Sample> =>
  fc.record({
    header: anyValue(safeForHttpHeader),
    cookie: anyValue(safeForHttpHeader),
    query: anyValue(safeForHttpHeader)
  })

/** The model: the first non-empty value, if well-formed and known, gives its user. */
const expected = (s: Sample): { readonly status: number; readonly user?: string } => {
  const first = [s.header, s.cookie, s.query].find((v) => v !== undefined && v.length > 0)
  if (first === undefined) return { status: 401 }
  const wellFormed = /^[\x21-\x7e]{1,512}$/.test(first)
  const session = wellFormed && Object.hasOwn(SESSIONS, first) ? SESSIONS[first] : undefined
  return session === undefined ? { status: 401 } : { status: 200, user: session.user_id }
}

const pathOf = (s: Sample) =>
  s.query === undefined ? "/x" : `/x?${new URLSearchParams({ session_id: s.query })}`

const headersOf = (s: Sample): Record<string, string> => ({
  ...(s.header === undefined ? {} : { "x-session-id": s.header }),
  ...(s.cookie === undefined ? {} : { cookie: `session_id=${encodeURIComponent(s.cookie)}` })
})

describe("property: only valid sessions reach a requireAuth handler", () => {
  it.effect("in process, any string in header, cookie and query", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      const validator = probeValidator(probe)
      let reached = 0
      const handler = Effect.map(CurrentUser, (user) => {
        reached++
        return json({ id: user.user_id })
      }).pipe(requireAuth())
      const check = (s: Sample) =>
        Effect.gen(function* () {
          const before = reached
          const request = requestOf(new Request(`http://localhost${pathOf(s)}`))
          const modified = request.modify({ headers: Headers.fromInput(headersOf(s)) })
          const response = yield* handler.pipe(
            Effect.provideService(HttpServerRequest.HttpServerRequest, modified),
            Effect.provide(validator)
          )
          const body = yield* Effect.promise(() => HttpServerResponse.toWeb(response).json())
          const model = expected(s)
          expect(response.status).toBe(model.status)
          expect(reached - before).toBe(model.status === 200 ? 1 : 0)
          if (model.user !== undefined) expect(body).toEqual({ id: model.user })
        })
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(sample(false), async (s) => {
            const exit = await Effect.runPromiseExit(check(s))
            if (Exit.isFailure(exit)) throw new Error(String(exit.cause))
          }),
          { numRuns: 500 }
        )
      )
    })
  )

  it.effect("on a real server, values HTTP can carry", () =>
    Effect.gen(function* () {
      const probe = yield* makeProbe
      let reached = 0
      yield* serve(
        Effect.map(CurrentUser, (user) => {
          reached++
          return json({ id: user.user_id })
        }).pipe(requireAuth()),
        probeValidator(probe)
      )
      const samples = fc.sample(sample(true), { numRuns: 150, seed: 42 })
      for (const s of samples) {
        // servers trim a header value's surrounding whitespace (RFC 9110, 5.5)
        const sent = { ...s, header: s.header?.trim() }
        const before = reached
        const reply = yield* call(pathOf(sent), { headers: headersOf(sent) })
        const model = expected(sent)
        expect(reply.status, JSON.stringify(sent)).toBe(model.status)
        expect(reached - before).toBe(model.status === 200 ? 1 : 0)
        if (model.user !== undefined) expect(reply.body).toEqual({ id: model.user })
      }
    }).pipe(Effect.provide(ServerLayer), Effect.scoped)
  )
})
