/**
 * Bad arguments throw a clear TypeError/RangeError naming the argument, when the guard or
 * validator is made (SPEC 6.3: `requireUserType([])`, `requirePermission("")`).
 */
import { describe, expect, it } from "vitest"
import {
  AuthMiddleware,
  optionalAuth,
  requireAuth,
  requirePermission,
  requireUserType,
  SessionValidator
} from "../../src/v3/Auth/index.js"

const cases: ReadonlyArray<{
  name: string
  make: () => unknown
  error: typeof TypeError | typeof RangeError
  message: RegExp
}> = [
  {
    name: "requireUserType([])",
    make: () => requireUserType([]),
    error: RangeError,
    message: /requireUserType: types must not be empty/
  },
  {
    name: "requireUserType(number)",
    make: () => requireUserType(3 as never),
    error: TypeError,
    message: /requireUserType: types must be a string or an array of strings, got 3/
  },
  {
    name: 'requireUserType("")',
    make: () => requireUserType(""),
    error: TypeError,
    message: /every type must be a non-empty string, got ""/
  },
  {
    name: "requireUserType with an empty type",
    make: () => requireUserType(["admin", ""]),
    error: TypeError,
    message: /every type/
  },
  {
    name: 'requirePermission("")',
    make: () => requirePermission(""),
    error: RangeError,
    message: /requirePermission: permission must not be empty/
  },
  {
    name: "requirePermission(number)",
    make: () => requirePermission(3 as never),
    error: TypeError,
    message: /requirePermission: permission must be a string, got 3/
  },
  {
    name: "requirePermission isAdmin not a function",
    make: () => requirePermission("x", { isAdmin: true as never }),
    error: TypeError,
    message: /options\.isAdmin/
  },
  {
    name: "empty header name",
    make: () => requireAuth({ header: "" }),
    error: RangeError,
    message: /requireAuth: options\.header must not be empty/
  },
  {
    name: "header not a string",
    make: () => optionalAuth({ header: 1 as never }),
    error: TypeError,
    message: /optionalAuth: options\.header/
  },
  {
    name: "empty cookie name",
    make: () => requireAuth({ cookie: "" }),
    error: RangeError,
    message: /options\.cookie/
  },
  {
    name: "query true",
    make: () => requireAuth({ query: true as never }),
    error: TypeError,
    message: /options\.query/
  },
  {
    name: "negative timeout",
    make: () => requireAuth({ timeout: -1 }),
    error: RangeError,
    message: /options\.timeout/
  },
  {
    name: "NaN timeout",
    make: () => requireAuth({ timeout: Number.NaN }),
    error: RangeError,
    message: /options\.timeout/
  },
  {
    name: "unparsable timeout",
    make: () => requireAuth({ timeout: "soon" as never }),
    error: RangeError,
    message: /options\.timeout must be a finite, non-negative duration, got "soon"/
  },
  {
    name: "options not an object",
    make: () => requireAuth("x" as never),
    error: TypeError,
    message: /requireAuth: options must be an object/
  },
  {
    name: "AuthMiddleware.requireUserType([])",
    make: () => AuthMiddleware.requireUserType([]),
    error: RangeError,
    message: /types must not be empty/
  },
  {
    name: 'AuthMiddleware.requirePermission("")',
    make: () => AuthMiddleware.requirePermission(""),
    error: RangeError,
    message: /permission must not be empty/
  },
  {
    name: "fromPromise(not a function)",
    make: () => SessionValidator.fromPromise("x" as never),
    error: TypeError,
    message: /fromPromise: lookup must be a function/
  },
  {
    name: "memory(null)",
    make: () => SessionValidator.memory(null as never),
    error: TypeError,
    message: /memory: sessions must be a Map or an object/
  },
  {
    name: "memory with an entry without user_id",
    make: () => SessionValidator.memory({ s: { email: "x" } as never }),
    error: TypeError,
    message: /memory: the session of an entry is not SessionData/
  },
  {
    name: "cached without ttl",
    make: () => SessionValidator.cached({} as never),
    error: TypeError,
    message: /cached: options\.ttl is required/
  },
  {
    name: "cached with a negative ttl",
    make: () => SessionValidator.cached({ ttl: -5 }),
    error: RangeError,
    message: /options\.ttl/
  },
  {
    name: "cached with capacity 0",
    make: () => SessionValidator.cached({ ttl: 1000, capacity: 0 }),
    error: RangeError,
    message: /options\.capacity must be a positive integer, got 0/
  },
  {
    name: "cached (data-first) with a bad negativeTtl",
    make: () =>
      SessionValidator.cached(SessionValidator.memory({}), { ttl: 1, negativeTtl: "x" as never }),
    error: RangeError,
    message: /options\.negativeTtl/
  }
]

describe("construction-time errors", () => {
  it.each(cases)("$name", ({ make, error, message }) => {
    expect(make).toThrow(error)
    expect(make).toThrow(message)
  })

  it("good options do not throw", () => {
    expect(
      typeof requireAuth({ header: "X-Token", cookie: false, query: false, timeout: "1 second" })
    ).toBe("function")
    expect(typeof requirePermission("x", { isAdmin: () => false })).toBe("function")
    expect(typeof requireUserType(["a"])).toBe("function")
    expect(typeof requireUserType("admin")).toBe("function")
    expect(typeof SessionValidator.cached({ ttl: "1 minute", negativeTtl: 0, capacity: 1 })).toBe(
      "function"
    )
  })
})
