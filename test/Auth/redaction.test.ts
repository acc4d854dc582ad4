/**
 * Session ids are `Redacted` from the moment they are read: the validator gets a `Redacted`, and
 * neither logs nor error responses nor the unavailable error carry the id. Shared: run on both
 * Effect lines (lineKit.ts); `layerRedactSessionHeader` has a test per line.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import {
  CurrentUser,
  optionalAuth,
  requireAuth,
  requirePermission,
  type SessionData,
  SessionValidator,
  SessionValidatorUnavailable
} from "../../src/v3/Auth/index.js"
import {
  HttpServerRequest,
  HttpServerResponse,
  logfmtLines,
  NodeHttpClient,
  requestOf,
  text,
  wipe
} from "./lineKit.js"

const SECRET = "secret-session-4242"

const run = <E>(
  guard: (
    self: Effect.Effect<HttpServerResponse.HttpServerResponse>
  ) => Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    E,
    SessionValidator | HttpServerRequest.HttpServerRequest
  >,
  validator: Layer.Layer<SessionValidator>
) => {
  // each line as a logfmt logger writes it (message, annotations and any cause with its stack)
  const lines: Array<string> = []
  const request = requestOf(new Request(`http://localhost/x?session_id=${SECRET}`))
  return text("ok").pipe(
    guard,
    Effect.provideService(HttpServerRequest.HttpServerRequest, request),
    Effect.provide(validator),
    Effect.provide(logfmtLines(lines)),
    Effect.flatMap((response) =>
      Effect.promise(async () => ({
        response,
        text: await HttpServerResponse.toWeb(response).text(),
        lines
      }))
    )
  )
}

describe("redaction", () => {
  it.effect("the validator receives a Redacted id", () =>
    Effect.gen(function* () {
      const received: Array<unknown> = []
      const validator = Layer.succeed(SessionValidator, {
        validate: (id) => {
          received.push(id)
          return Effect.succeedNone
        }
      })
      yield* run(requireAuth(), validator)
      expect(received).toHaveLength(1)
      expect(Redacted.isRedacted(received[0])).toBe(true)
      expect(String(received[0])).not.toContain(SECRET)
      expect(JSON.stringify(received[0])).not.toContain(SECRET)
      expect(Redacted.value(received[0] as Redacted.Redacted<string>)).toBe(SECRET)
    })
  )

  // each request its own Redacted id and user: a handler's hygiene reaches no other request
  const held: ReadonlyArray<[string, () => Layer.Layer<SessionValidator>]> = [
    ["memory", () => SessionValidator.memory({ [SECRET]: { user_id: "u1" } })],
    [
      "cached(fromPromise)",
      () =>
        SessionValidator.fromPromise(async () => ({ user_id: "u1" })).pipe(
          SessionValidator.cached({ ttl: "1 minute" })
        )
    ],
    [
      "fromPromise answering one object",
      () => {
        const session = { user_id: "u1" }
        return SessionValidator.fromPromise(async () => session)
      }
    ]
  ]
  for (const [name, make] of held) {
    it.effect(
      `a handler that wipes its id or writes to its user leaves the next request's whole (${name})`,
      () =>
        Effect.gen(function* () {
          const handler = Effect.gen(function* () {
            const user = yield* CurrentUser
            const id = Redacted.value(user.session_id)
            const userId = user.user_id
            wipe(user.session_id)
            // the user is frozen: a write throws, and changes nothing
            let refused = false
            try {
              ;(user as { user_id: string }).user_id = "someone else"
            } catch (error) {
              refused = error instanceof TypeError
            }
            return HttpServerResponse.text(`${userId} ${id === SECRET} ${refused}`)
          })
          const request = () =>
            handler.pipe(
              requireAuth(),
              Effect.provideService(
                HttpServerRequest.HttpServerRequest,
                requestOf(
                  new Request("http://localhost/x", { headers: { "x-session-id": SECRET } })
                )
              ),
              Effect.flatMap((response) =>
                Effect.promise(async () => [
                  response.status,
                  await HttpServerResponse.toWeb(response).text()
                ])
              )
            )
          // one validator for the three requests: what it holds serves the later two
          const answers = yield* Effect.all([request(), request(), request()]).pipe(
            Effect.provide(make())
          )
          expect(answers).toEqual([
            [200, "u1 true true"],
            [200, "u1 true true"],
            [200, "u1 true true"]
          ])
        })
    )
  }

  // the session a handler gets is frozen, all the way down: writing to it throws, and what the
  // validator holds (or the application's own object) stays as it was
  const sessionOf = () => ({ user_id: "u1", permissions: ["read"], profile: { teams: ["core"] } })
  const heldSessions: ReadonlyArray<
    [string, (own: ReturnType<typeof sessionOf>) => Layer.Layer<SessionValidator>]
  > = [
    ["memory", (own) => SessionValidator.memory({ [SECRET]: own })],
    [
      "cached(fromPromise)",
      (own) =>
        SessionValidator.fromPromise(async () => own).pipe(
          SessionValidator.cached({ ttl: "1 minute" })
        )
    ],
    [
      "an application's own validator answering one object",
      (own) => Layer.succeed(SessionValidator, { validate: () => Effect.succeedSome(own) })
    ]
  ]
  for (const [name, make] of heldSessions) {
    it.effect(`a handler that writes to its session changes no later request's (${name})`, () =>
      Effect.gen(function* () {
        const own = sessionOf()
        const writes = Effect.gen(function* () {
          const user = yield* CurrentUser
          const session = user.session as unknown as {
            permissions: Array<string>
            profile: { teams: Array<string>; role?: string }
            user_type?: string
          }
          const refused: Array<string> = []
          for (const [what, write] of [
            ["push", () => session.permissions.push("admin")],
            ["field", () => (session.user_type = "admin")],
            ["nested", () => (session.profile.role = "admin")],
            ["nested array", () => session.profile.teams.push("ops")]
          ] as const) {
            try {
              write()
            } catch (error) {
              if (error instanceof TypeError) refused.push(what)
            }
          }
          return HttpServerResponse.text(refused.join(","))
        })
        const admin = Effect.as(CurrentUser, HttpServerResponse.text("admin"))
        const request = (handler: typeof writes, guard: typeof requireAuth) =>
          handler.pipe(
            guard(),
            Effect.provideService(
              HttpServerRequest.HttpServerRequest,
              requestOf(new Request("http://localhost/x", { headers: { "x-session-id": SECRET } }))
            ),
            Effect.flatMap((response) =>
              Effect.promise(async () => [
                response.status,
                await HttpServerResponse.toWeb(response).text()
              ])
            )
          )
        const answers = yield* Effect.all([
          request(writes, requireAuth),
          request(admin, () => requirePermission("admin")),
          request(writes, requireAuth)
        ]).pipe(Effect.provide(make(own)))
        expect(answers).toEqual([
          [200, "push,field,nested,nested array"],
          [403, '{"error":"Permission required: admin"}'],
          [200, "push,field,nested,nested array"]
        ])
        // the application's object is its own: neither frozen nor changed
        expect(Object.isFrozen(own) || Object.isFrozen(own.permissions)).toBe(false)
        expect(own).toEqual(sessionOf())
        if (name.startsWith("an application's own")) {
          // what it changes in place is seen by the next request
          own.permissions.push("admin")
          const [status] = yield* request(admin, () => requirePermission("admin")).pipe(
            Effect.provide(make(own))
          )
          expect(status).toBe(200)
        }
      })
    )
  }

  it.effect("a session's nested fields reach the handler as data, whatever their names", () =>
    Effect.gen(function* () {
      const profile = JSON.parse('{"__proto__":{"admin":true},"constructor":"c","prototype":"v2"}')
      const session = { user_id: "u1", profile }
      const seen = yield* Effect.map(CurrentUser, (user) => {
        const copy = (user.session as unknown as { profile: Record<string, unknown> }).profile
        return {
          keys: Object.keys(copy),
          constructor: copy.constructor,
          prototype: Object.getPrototypeOf(copy) === Object.prototype,
          inherited: (copy as { admin?: unknown }).admin,
          frozen:
            Object.isFrozen(copy) &&
            Object.isFrozen(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value)
        }
      }).pipe(
        requireAuth(),
        Effect.provideService(
          HttpServerRequest.HttpServerRequest,
          requestOf(new Request("http://localhost/x", { headers: { "x-session-id": SECRET } }))
        ),
        Effect.provide(SessionValidator.memory({ [SECRET]: session }))
      )
      expect(seen).toEqual({
        keys: ["__proto__", "constructor", "prototype"],
        constructor: "c",
        prototype: true,
        inherited: undefined,
        frozen: true
      })
    })
  )

  it.effect("a session is frozen however deep it nests, and one past 64 levels is refused", () =>
    Effect.gen(function* () {
      const nest = (levels: number) => {
        const root: Record<string, unknown> = {}
        let at = root
        for (let i = 1; i < levels; i++) {
          const next: Record<string, unknown> = {}
          at.next = next
          at = next
        }
        at.leaf = ["original"]
        return root
      }
      const deepSession = (levels: number) => {
        const session = { user_id: "u1", deep: nest(levels) }
        return session
      }
      const deepest = Effect.map(CurrentUser, (user) => {
        let at = (user.session as unknown as { deep: Record<string, unknown> }).deep
        while (at.next !== undefined) at = at.next as Record<string, unknown>
        return Object.isFrozen(at) && Object.isFrozen(at.leaf)
      })
      const frozen = yield* deepest.pipe(
        requireAuth(),
        Effect.provideService(
          HttpServerRequest.HttpServerRequest,
          requestOf(new Request("http://localhost/x", { headers: { "x-session-id": SECRET } }))
        ),
        Effect.provide(SessionValidator.memory({ [SECRET]: deepSession(60) }))
      )
      expect(frozen).toBe(true)
      expect(() => SessionValidator.memory({ [SECRET]: deepSession(70) })).toThrow(
        /nests deeper than 64 levels/
      )
    })
  )

  it.effect("an application's own session whose parts repeat or loop is copied as it is", () =>
    Effect.gen(function* () {
      const profile: Record<string, unknown> = { name: "p" }
      profile.self = profile
      // parts met again and again: copied once each, not once per path to them
      let shared: Record<string, unknown> = { end: true }
      for (let i = 0; i < 40; i++) shared = { left: shared, right: shared }
      const session = { user_id: "u1", profile, shared }
      const seen = yield* Effect.map(CurrentUser, (user) => {
        const copy = (user.session as unknown as { profile: Record<string, unknown> }).profile
        const tree = (user.session as unknown as { shared: Record<string, unknown> }).shared
        return {
          loops: copy.self === copy,
          frozen: Object.isFrozen(copy),
          copied: copy !== profile,
          shared: tree.left === tree.right
        }
      }).pipe(
        requireAuth(),
        Effect.provideService(
          HttpServerRequest.HttpServerRequest,
          requestOf(new Request("http://localhost/x", { headers: { "x-session-id": SECRET } }))
        ),
        Effect.provide(
          Layer.succeed(SessionValidator, { validate: () => Effect.succeedSome(session) })
        )
      )
      expect(seen).toEqual({ loops: true, frozen: true, copied: true, shared: true })
    })
  )

  const failing: ReadonlyArray<[string, Layer.Layer<SessionValidator>]> = [
    [
      "a failure carrying the id as its cause",
      Layer.succeed(SessionValidator, {
        validate: (id) =>
          Effect.fail(new SessionValidatorUnavailable({ reason: "Failure", cause: id }))
      })
    ],
    [
      "a defect mentioning the Redacted id",
      Layer.succeed(SessionValidator, {
        validate: (id) => Effect.die(new Error(`lookup of ${id} failed`))
      })
    ],
    [
      "fromPromise rejecting",
      SessionValidator.fromPromise(() => Promise.reject(new Error("db down")))
    ],
    [
      "fromPromise rejecting with the raw id in its message (security item 9)",
      SessionValidator.fromPromise((id) => Promise.reject(new Error(`no row for ${id}`)))
    ],
    [
      "fromPromise answering something else that quotes the id (security item 9)",
      SessionValidator.fromPromise(
        (id) => ({ user_id: 42, note: `unknown session ${id}` }) as unknown as SessionData
      )
    ]
  ]

  it.effect.each(failing)("%s: one short line, without the id", ([, validator]) =>
    Effect.gen(function* () {
      for (const [guard, status] of [
        [requireAuth(), 500],
        [optionalAuth(), 200]
      ] as const) {
        const { response, text, lines } = yield* run(guard, validator)
        expect(lines).toHaveLength(1)
        expect(lines[0]).toMatch(
          /Session validator unavailable \((Failure|Defect|InvalidResponse)\)/
        )
        expect(lines[0]).not.toContain(SECRET)
        expect(lines[0]).not.toMatch(/\n|\bat /)
        expect(new TextEncoder().encode(lines[0]).byteLength).toBeLessThan(200)
        expect(text).not.toContain(SECRET)
        expect(response.status).toBe(status)
      }
    })
  )

  describe("SessionValidator.http, against a real auth service that quotes the id", () => {
    let auth: Server
    let url = ""
    beforeAll(async () => {
      auth = createServer((request, response) => {
        const id = String(request.headers["x-session-id"])
        if (request.url === "/text") {
          response.writeHead(200, { "content-type": "text/plain" })
          response.end(`unknown session ${id}`)
        } else if (request.url === "/json") {
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify({ user_id: null, note: `unknown session ${id}` }))
        } else {
          // a 200 that denies the session, quoting the id
          response.writeHead(200, { "content-type": "application/json" })
          response.end(JSON.stringify({ success: false, error: `unknown session ${id}` }))
        }
      })
      await new Promise<void>((resolve) => auth.listen(0, "127.0.0.1", resolve))
      url = `http://127.0.0.1:${(auth.address() as AddressInfo).port}`
    })
    afterAll(() => new Promise<void>((resolve) => auth.close(() => resolve())))

    it.effect.each(["/text", "/json"])(
      "a 200 %s answer that is not SessionData is logged without its body (security item 9)",
      (path) =>
        Effect.gen(function* () {
          const undici = yield* Layer.build(NodeHttpClient.layerUndici)
          const validator = SessionValidator.http({ url: url + path }).pipe(
            Layer.provide(Layer.succeedContext(undici))
          )
          const { response, text, lines } = yield* run(requireAuth(), validator)
          expect(response.status).toBe(500)
          expect(lines).toHaveLength(1)
          expect(lines[0]).toContain("Session validator unavailable (InvalidResponse)")
          expect(lines[0]).not.toContain(SECRET)
          expect(lines[0]).not.toContain("unknown session")
          expect(text).not.toContain(SECRET)
        }).pipe(Effect.scoped)
    )

    it.effect("a 200 that denies the session is Invalid session, its body logged nowhere", () =>
      Effect.gen(function* () {
        const undici = yield* Layer.build(NodeHttpClient.layerUndici)
        const validator = SessionValidator.http({ url: `${url}/denied` }).pipe(
          Layer.provide(Layer.succeedContext(undici))
        )
        const { response, text, lines } = yield* run(requireAuth(), validator)
        expect(response.status).toBe(401)
        expect(JSON.parse(text)).toEqual({ error: "Invalid session" })
        expect(lines.join("\n")).not.toContain(SECRET)
        expect(lines.join("\n")).not.toContain("unknown session")
      }).pipe(Effect.scoped)
    )
  })

  it.effect("the unavailable error's message and JSON do not carry the id", () =>
    Effect.gen(function* () {
      const validator = SessionValidator.fromPromise(() => {
        throw new Error("unreachable")
      })
      const error = yield* Effect.flatMap(SessionValidator, (v) =>
        v.validate(Redacted.make(SECRET))
      ).pipe(Effect.provide(validator), Effect.flip)
      expect(error.message).not.toContain(SECRET)
      expect(JSON.stringify(error)).not.toContain(SECRET)
    })
  )
})
