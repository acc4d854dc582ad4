/**
 * Bad arguments throw a clear TypeError/RangeError naming the argument, when the guard or
 * validator is made (SPEC 6.3: `requireUserType([])`, `requirePermission("")`): one suite, run
 * over each Effect line's `Auth` module.
 */
import { describe, expect, it } from "vitest"

/** What the suite calls of an `Auth` module (methods: any line's signatures fit). */
export interface AuthUnderTest {
  requireAuth(...args: Array<unknown>): unknown
  optionalAuth(...args: Array<unknown>): unknown
  requireUserType(...args: Array<unknown>): unknown
  requirePermission(...args: Array<unknown>): unknown
  readonly AuthMiddleware: {
    requireUserType(...args: Array<unknown>): unknown
    requirePermission(...args: Array<unknown>): unknown
  }
  readonly SessionValidator: {
    fromPromise(...args: Array<unknown>): unknown
    memory(...args: Array<unknown>): unknown
    cached(...args: Array<unknown>): unknown
    http(...args: Array<unknown>): unknown
  }
  layerRedactSessionHeader(...args: Array<unknown>): unknown
  readonly SessionStore: {
    layerRedis(...args: Array<unknown>): unknown
    layerFileSystem(...args: Array<unknown>): unknown
  }
  readonly LoginThrottle: { layerRedis(...args: Array<unknown>): unknown }
}

export const construction = (line: string, auth: AuthUnderTest): void => {
  const cases: ReadonlyArray<{
    name: string
    make: () => unknown
    error: typeof TypeError | typeof RangeError
    // a text the message holds as it is, or a pattern it matches
    message: RegExp | string
  }> = [
    {
      name: "requireUserType([])",
      make: () => auth.requireUserType([]),
      error: RangeError,
      message: /requireUserType: types must not be empty/
    },
    {
      name: "requireUserType(number)",
      make: () => auth.requireUserType(3 as never),
      error: TypeError,
      message: /requireUserType: types must be a string or an array of strings, got 3/
    },
    {
      name: 'requireUserType("")',
      make: () => auth.requireUserType(""),
      error: TypeError,
      message: /every type must be a non-empty string, got ""/
    },
    {
      name: "requireUserType with an empty type",
      make: () => auth.requireUserType(["admin", ""]),
      error: TypeError,
      message: /every type/
    },
    {
      name: 'requirePermission("")',
      make: () => auth.requirePermission(""),
      error: RangeError,
      message: /requirePermission: permission must not be empty/
    },
    {
      name: "requirePermission(number)",
      make: () => auth.requirePermission(3 as never),
      error: TypeError,
      message: /requirePermission: permission must be a string, got 3/
    },
    {
      name: "requirePermission isAdmin not a function",
      make: () => auth.requirePermission("x", { isAdmin: true as never }),
      error: TypeError,
      message: /options\.isAdmin/
    },
    // null is no check at all: the default admin check would let admins past unasked
    {
      name: "requirePermission isAdmin null",
      make: () => auth.requirePermission("x", { isAdmin: null as never }),
      error: TypeError,
      message:
        "requirePermission: options.isAdmin must be a function (`() => false` lets no one past as an admin), got null"
    },
    {
      name: "empty header name",
      make: () => auth.requireAuth({ header: "" }),
      error: RangeError,
      message: /requireAuth: options\.header must not be empty/
    },
    {
      name: "header not a string",
      make: () => auth.optionalAuth({ header: 1 as never }),
      error: TypeError,
      message: /optionalAuth: options\.header/
    },
    // a name a request cannot carry would never be found: every request would be refused
    ...["X Session", "x-id\n", "é", "a:b", "__proto__", "__PROTO__"].flatMap((header) => [
      {
        name: `requireAuth({ header: ${JSON.stringify(header)} })`,
        make: () => auth.requireAuth({ header }),
        error: TypeError,
        message: `requireAuth: options.header must be a header name (an HTTP token other than __proto__), got ${JSON.stringify(header)}`
      },
      {
        name: `layerRedactSessionHeader({ header: ${JSON.stringify(header)} })`,
        make: () => auth.layerRedactSessionHeader({ header }),
        error: TypeError,
        message: /layerRedactSessionHeader: options\.header must be a header name/
      },
      {
        name: `SessionValidator.http({ header: ${JSON.stringify(header)} })`,
        make: () => auth.SessionValidator.http({ url: "http://127.0.0.1:1/s", header }),
        error: TypeError,
        message: /SessionValidator\.http: options\.header must be a header name/
      }
    ]),
    ...["a;b", "a=b", "a b", "a,b", "é"].map((cookie) => ({
      name: `optionalAuth({ cookie: ${JSON.stringify(cookie)} })`,
      make: () => auth.optionalAuth({ cookie }),
      error: TypeError,
      message:
        /optionalAuth: options\.cookie must be a cookie name \(visible ASCII but = ; ,\), got "/
    })),
    {
      name: "empty cookie name",
      make: () => auth.requireAuth({ cookie: "" }),
      error: RangeError,
      message: /options\.cookie/
    },
    {
      name: "query true",
      make: () => auth.requireAuth({ query: true as never }),
      error: TypeError,
      message: /options\.query/
    },
    {
      name: "negative timeout",
      make: () => auth.requireAuth({ timeout: -1 }),
      error: RangeError,
      message: /options\.timeout/
    },
    {
      name: "NaN timeout",
      make: () => auth.requireAuth({ timeout: Number.NaN }),
      error: RangeError,
      message: /options\.timeout/
    },
    {
      name: "unparsable timeout",
      make: () => auth.requireAuth({ timeout: "soon" as never }),
      error: RangeError,
      message: /options\.timeout must be a finite, non-negative duration, got "soon"/
    },
    // a misspelt duration object: Effect 4 reads duration objects, and would read this one as no
    // time at all; Effect 3 reads none
    {
      name: "a timeout object with a key no duration has",
      make: () => auth.requireAuth({ timeout: { second: 5 } as never }),
      error: RangeError,
      message: /options\.timeout must be a finite, non-negative duration, got an object/
    },
    {
      name: "cached with an empty ttl object",
      make: () => auth.SessionValidator.cached({ ttl: {} as never }),
      error: RangeError,
      message: /options\.ttl/
    },
    // ioredis reads 0 as a limit already passed: every command (or the connection) would fail
    {
      name: "SessionStore.layerRedis with commandTimeout 0",
      make: () => auth.SessionStore.layerRedis({ url: "redis://127.0.0.1:1", commandTimeout: 0 }),
      error: RangeError,
      message:
        /SessionStore\.layerRedis: options\.commandTimeout must be a positive, finite duration, got 0/
    },
    {
      name: "LoginThrottle.layerRedis with connectTimeout 0",
      make: () => auth.LoginThrottle.layerRedis({ url: "redis://127.0.0.1:1", connectTimeout: 0 }),
      error: RangeError,
      message:
        /LoginThrottle\.layerRedis: options\.connectTimeout must be a positive, finite duration, got 0/
    },
    {
      name: "options not an object",
      make: () => auth.requireAuth("x" as never),
      error: TypeError,
      message: /requireAuth: options must be an object/
    },
    {
      name: "AuthMiddleware.requireUserType([])",
      make: () => auth.AuthMiddleware.requireUserType([]),
      error: RangeError,
      message: /types must not be empty/
    },
    {
      name: 'AuthMiddleware.requirePermission("")',
      make: () => auth.AuthMiddleware.requirePermission(""),
      error: RangeError,
      message: /permission must not be empty/
    },
    {
      name: "fromPromise(not a function)",
      make: () => auth.SessionValidator.fromPromise("x" as never),
      error: TypeError,
      message: /fromPromise: lookup must be a function/
    },
    {
      name: "memory(null)",
      make: () => auth.SessionValidator.memory(null as never),
      error: TypeError,
      message: /memory: sessions must be a Map or an object/
    },
    {
      name: "memory with an entry without user_id",
      make: () => auth.SessionValidator.memory({ s: { email: "x" } as never }),
      error: TypeError,
      message: /memory: the session of an entry is not SessionData/
    },
    // an id that no guard would present (it refuses such ids before asking), never quoted
    ...[
      ["an empty id", { "": { user_id: "u" } }],
      ["an id with a space", { "a b": { user_id: "u" } }],
      ["an id of 513 characters", { ["s".repeat(513)]: { user_id: "u" } }],
      ["a Map with a number for an id", new Map([[1, { user_id: "u" }]])]
    ].map(([what, sessions]) => ({
      name: `memory with ${what}`,
      make: () => auth.SessionValidator.memory(sessions),
      error: TypeError,
      message:
        /^SessionValidator\.memory: every id must be a session id \(1 to 512 visible ASCII characters\), got (a string of \d+ characters that is not one|1)$/
    })),
    ...[undefined, "", 5].map((directory) => ({
      name: `SessionStore.layerFileSystem(${JSON.stringify(directory)})`,
      make: () => auth.SessionStore.layerFileSystem(directory),
      error: TypeError,
      message: /^SessionStore\.layerFileSystem: directory must be a non-empty path, got /
    })),
    {
      name: "cached without ttl",
      make: () => auth.SessionValidator.cached({} as never),
      error: TypeError,
      message: /cached: options\.ttl is required/
    },
    {
      name: "cached with a negative ttl",
      make: () => auth.SessionValidator.cached({ ttl: -5 }),
      error: RangeError,
      message: /options\.ttl/
    },
    {
      name: "cached with capacity 0",
      make: () => auth.SessionValidator.cached({ ttl: 1000, capacity: 0 }),
      error: RangeError,
      message: /options\.capacity must be a positive integer, got 0/
    },
    {
      name: "cached (data-first) with a bad negativeTtl",
      make: () =>
        auth.SessionValidator.cached(auth.SessionValidator.memory({}), {
          ttl: 1,
          negativeTtl: "x" as never
        }),
      error: RangeError,
      message: /options\.negativeTtl/
    }
  ]

  describe(`construction-time errors (${line})`, () => {
    it.each(cases)("$name", ({ make, error, message }) => {
      expect(make).toThrow(error)
      expect(make).toThrow(message)
    })

    it("good options do not throw", () => {
      expect(
        typeof auth.requireAuth({
          header: "X-Token",
          cookie: false,
          query: false,
          timeout: "1 second"
        })
      ).toBe("function")
      // cookie names in use that are not RFC 6265 tokens, and header names of every kind
      for (const cookie of [
        "app:sid",
        "session[id]",
        "sid@example",
        "__Host-session",
        "connect.sid"
      ])
        expect(typeof auth.optionalAuth({ cookie })).toBe("function")
      for (const header of ["X-Session-Id", "Authorization", "x_session_2"])
        expect(typeof auth.requireAuth({ header })).toBe("function")
      expect(typeof auth.requirePermission("x", { isAdmin: () => false })).toBe("function")
      expect(typeof auth.requireUserType(["a"])).toBe("function")
      expect(typeof auth.requireUserType("admin")).toBe("function")
      expect(
        typeof auth.SessionValidator.cached({ ttl: "1 minute", negativeTtl: 0, capacity: 1 })
      ).toBe("function")
    })
  })
}
