/**
 * Security items 5 and 6 (SPEC 4.3.5, 4.3.9): a caller's mistake is `INVALID_REQUEST` naming the
 * argument, and nothing is sent — never a `NETWORK_ERROR` that tells the app it is offline, never a
 * request sent with a body the caller did not mean.
 */
import { createReadStream } from "node:fs"
import { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "@effect/vitest"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { afterAll, beforeAll } from "vitest"
import { createSvc, type RequestOptions } from "../../src/v3/Client/index.js"
import { json, startServer, type TestServer } from "./server.js"
import { withClient } from "./transports.js"

let server: TestServer
beforeAll(async () => {
  server = await startServer(() => json({ data: 1, success: true }))
})
afterAll(() => server.close())

const circular: Record<string, unknown> = { a: 1 }
circular.self = circular

const badOptions: ReadonlyArray<readonly [string, RequestOptions, RegExp]> = [
  // an object is named by its prototype's class: an own `constructor` (JSON may hold one) is the
  // caller's text, and stays out of the message
  [
    "an object whose own constructor names something",
    { signal: JSON.parse('{"constructor":{"name":"X\\nForged: 1"}}') },
    /^options\.signal must be an AbortSignal, got an object$/
  ],
  // entries held elsewhere than in its keys: read as a record, they were no parameters at all
  // (a filtered DELETE went out unfiltered)
  [
    "params as URLSearchParams",
    { params: new URLSearchParams({ id: "5" }) as never },
    /^options\.params must be an object, got a URLSearchParams$/
  ],
  [
    "params as a Map",
    { params: new Map([["id", "5"]]) as never },
    /^options\.params must be an object, got a Map$/
  ],
  [
    "headers as Headers",
    { headers: new Headers({ "x-a": "1" }) as never },
    /^options\.headers must be an object, got a Headers$/
  ],
  [
    "a signal that is an ArrayBuffer (its class named with its article)",
    { signal: new ArrayBuffer(1) as never },
    /^options\.signal must be an AbortSignal, got an ArrayBuffer$/
  ],
  [
    "a signal that is not an AbortSignal",
    { signal: "stop" as never },
    /^options\.signal must be an AbortSignal, got "stop"$/
  ],
  [
    "a signal-like object without listeners",
    { signal: { aborted: false } as never },
    /^options\.signal must be an AbortSignal/
  ],
  [
    "a schema that is not a schema",
    { schema: { parse: () => 1 } as never },
    /^options\.schema must be an effect\/Schema or a Standard Schema validator/
  ],
  [
    "a negative timeout",
    { timeout: -5 },
    /^options\.timeout must be between 0 \(no timeout\) and 2147483647 ms, got -5$/
  ],
  [
    "a timeout of 2 ** 31 ms (security item 5)",
    { timeout: 2 ** 31 },
    /^options\.timeout must be between 0 .* got 2147483648$/
  ],
  [
    "a timeout of 25 days as a Duration",
    { timeout: Duration.days(25) },
    /^options\.timeout must be between/
  ],
  ["an infinite timeout", { timeout: Duration.infinity }, /^options\.timeout must be between/],
  [
    "a timeout that is not a duration",
    { timeout: "soon" as never },
    /^options\.timeout must be a number of milliseconds or a Duration, got "soon"$/
  ],
  // a misspelt duration object: Effect 4 reads duration objects, and would read these as no
  // time at all (no timeout); Effect 3 reads none
  [
    "a timeout object with a key no duration has",
    { timeout: { second: 5 } as never },
    /^options\.timeout must be a number of milliseconds or a Duration, got an object$/
  ],
  [
    "an empty timeout object",
    { timeout: {} as never },
    /^options\.timeout must be a number of milliseconds or a Duration, got an object$/
  ],
  [
    "headers with a CR LF in a value",
    { headers: { "x-a": "1\r\nx-b: 2" } },
    /^options\.headers are invalid: header value for x-a must not contain control characters \(tab aside\) or characters past U\+00FF$/
  ],
  [
    "headers with a character HTTP cannot carry (past U+00FF)",
    { headers: { "x-a": "日本" } },
    /^options\.headers are invalid: header value for x-a must not contain control characters \(tab aside\) or characters past U\+00FF$/
  ],
  [
    "headers with a control character",
    { headers: { "x-a": "bell\u0007" } },
    /^options\.headers are invalid: header value for x-a must not contain control characters/
  ],
  [
    "headers with a bad name",
    { headers: { "a b": "1" } },
    /^options\.headers are invalid: header name must be an HTTP token other than __proto__, got "a b"$/
  ],
  [
    "a param that is an object",
    { params: { q: { a: 1 } as never } },
    /^options\.params\.q must be a string, number/
  ],
  [
    "a param that is an invalid Date",
    { params: { since: new Date(Number.NaN) } },
    /^options\.params\.since must be/
  ],
  [
    "includeSession that is not a boolean",
    { includeSession: "no" as never },
    /^options\.includeSession must be a boolean, got "no"$/
  ],
  [
    "a retrySchedule that is not a Schedule",
    { retrySchedule: 3 as never },
    /^options\.retrySchedule must be a Schedule$/
  ]
]

/** A Blob whose bytes cannot be read, as `fs.openAsBlob`'s once its file has changed. */
class UnreadableBlob extends Blob {
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.reject(new DOMException("The blob could not be read", "NotReadableError"))
  }
}

/** A view over a buffer given away (transferred): its bytes are gone. */
const detached = () => {
  const buffer = new ArrayBuffer(8)
  const view = new Uint8Array(buffer)
  structuredClone(buffer, { transfer: [buffer] })
  return view
}

const badBodies: ReadonlyArray<readonly [string, unknown, RegExp]> = [
  ["a function", () => 1, /^body cannot be sent: a function has no JSON form$/],
  ["a Symbol", Symbol("s"), /^body cannot be sent: a symbol has no JSON form$/],
  ["a BigInt", 10n, /^body cannot be encoded as JSON: .*BigInt/],
  ["an object holding a BigInt", { n: 10n }, /^body cannot be encoded as JSON: .*BigInt/],
  ["a circular object", circular, /^body cannot be encoded as JSON: .*circular/i],
  // what holds its contents elsewhere than in its keys went as "{}"
  [
    "a ReadableStream",
    new ReadableStream(),
    /^body cannot be sent: a ReadableStream has no JSON form$/
  ],
  ["a Map", new Map([["a", 1]]), /^body cannot be sent: a Map has no JSON form$/],
  ["a Blob that cannot be read", new UnreadableBlob(["x"]), /^body could not be read: The blob/],
  ["bytes of a detached ArrayBuffer", detached(), /^body could not be read: .*detached/],
  ["a Set", new Set([1]), /^body cannot be sent: a Set has no JSON form$/],
  ["a Promise", Promise.resolve({ a: 1 }), /^body cannot be sent: a Promise has no JSON form$/],
  [
    "an async iterable",
    { async *[Symbol.asyncIterator]() {} },
    /^body cannot be sent: an object has no JSON form$/
  ],
  // an async generator's class has no name: it is named as an object, not "a "
  [
    "an async generator",
    (async function* () {})(),
    /^body cannot be sent: an object has no JSON form$/
  ],
  // a Node stream's JSON is its internals: a file's path and descriptor, not its bytes
  [
    "a file's Node stream",
    createReadStream(fileURLToPath(import.meta.url)),
    /^body cannot be sent: a ReadStream is a stream; send its bytes$/
  ],
  ["a Node Readable", Readable.from(["a"]), /^body cannot be sent: a Readable is a stream/],
  // JSON without their contents, as {}: a Response's body, an Error's message, a class's getters
  ["a Response", new Response("x"), /^body cannot be sent: a Response has no JSON form$/],
  ["an Error", new Error("kept"), /^body cannot be sent: an Error has no JSON form$/],
  ["a WeakMap", new WeakMap(), /^body cannot be sent: a WeakMap has no JSON form$/],
  // built-ins of any realm whose JSON is {}: another realm's Error, a RegExp, a SharedArrayBuffer
  [
    "another realm's Error",
    runInNewContext("new Error('kept')"),
    /^body cannot be sent: an Error has no JSON form$/
  ],
  ["a RegExp", /kept/, /^body cannot be sent: a RegExp has no JSON form$/],
  [
    "a SharedArrayBuffer",
    new SharedArrayBuffer(4),
    /^body cannot be sent: a SharedArrayBuffer has no JSON form$/
  ]
]

class Named extends Schema.Class<Named>("Named")({ name: Schema.String }) {}
class Point extends Data.Class<{ readonly x: number }> {}

describe("bodies that are JSON whatever their class", () => {
  class Dto {
    constructor(readonly name: string) {}
  }
  it.each([
    ["a class instance (a DTO)", new Dto("a"), '{"name":"a"}'],
    ["a Date", new Date(0), '"1970-01-01T00:00:00.000Z"'],
    ["an iterable with its own toJSON", { *[Symbol.iterator]() {}, toJSON: () => [1] }, "[1]"],
    ["an array", [1, 2], "[1,2]"],
    ["a String object", new String("hi"), '"hi"'],
    // what says {} itself
    [
      "a class instance whose toJSON gives {}",
      new (class Empty {
        toJSON() {
          return {}
        }
      })(),
      "{}"
    ],
    ["an empty object without a prototype", Object.create(null), "{}"],
    ["an empty plain object", {}, "{}"],
    // Effect's own classes (Effect 4's have a `pipe`, as a Node stream has)
    ["a Schema.Class instance", new Named({ name: "ada" }), '{"name":"ada"}'],
    ["a Data.Class instance", new Point({ x: 1 }), '{"x":1}'],
    // what says {} itself: an empty DTO (a PATCH that changes nothing), another realm's {}
    ["an empty class instance", new (class Patch {})(), "{}"],
    ["another realm's empty object", runInNewContext("({})"), "{}"],
    ["null, as JSON", null, "null"],
    // another realm's bytes are bytes (a worker's, a vm context's)
    ["another realm's ArrayBuffer", runInNewContext("new Uint8Array([104, 105]).buffer"), "hi"],
    [
      "a DTO whose fields are all undefined",
      new (class SearchFilter {
        name: string | undefined = undefined
      })(),
      "{}"
    ],
    [
      "an object with a getReader key",
      { getReader: "x", name: "n" },
      '{"getReader":"x","name":"n"}'
    ]
  ])("%s", async (_name, body, sent) => {
    const before = server.requests.length
    expect((await createSvc(server.origin).post("/x", body)).success).toBe(true)
    expect(server.requests).toHaveLength(before + 1)
    expect(server.requests[before]!.body).toBe(sent)
  })
})

describe("INVALID_REQUEST in the facade: nothing sent, the argument named", () => {
  it.each(badOptions)("%s", async (_name, options, message) => {
    const before = server.requests.length
    const errors: Array<Error> = []
    const svc = createSvc(server.origin, { onError: (error) => errors.push(error) })
    const response = await svc.get("/x", options)
    expect(response).toMatchObject({ success: false, status: 0, code: "INVALID_REQUEST" })
    expect(response.error).toMatch(message)
    expect(server.requests.length).toBe(before)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(Error)
  })

  it.each(badBodies)("a body that is %s", async (_name, body, message) => {
    const before = server.requests.length
    const response = await createSvc(server.origin).post("/x", body)
    expect(response).toMatchObject({ success: false, status: 0, code: "INVALID_REQUEST" })
    expect(response.error).toMatch(message)
    expect(server.requests.length).toBe(before)
  })

  it("a non-string endpoint and a non-object options", async () => {
    const svc = createSvc(server.origin)
    expect(await svc.get(undefined as never)).toMatchObject({
      code: "INVALID_REQUEST",
      error: "endpoint must be a string, got undefined"
    })
    expect(await svc.get("/x", 5 as never)).toMatchObject({
      code: "INVALID_REQUEST",
      error: "options must be an object, got 5"
    })
  })

  it("a bad timeout or signal set by an interceptor", async () => {
    const svc = createSvc(server.origin)
    svc.addRequestInterceptor((config) => ({ ...config, timeout: 2 ** 40 }))
    expect(await svc.get("/x")).toMatchObject({
      code: "INVALID_REQUEST",
      error: expect.stringMatching(
        /^RequestConfig\.timeout \(from an interceptor or onRequest\) must be between/
      )
    })
    const other = createSvc(server.origin)
    other.addRequestInterceptor((config) => ({ ...config, signal: 1 as never }))
    expect(await other.get("/x")).toMatchObject({
      code: "INVALID_REQUEST",
      error: "RequestConfig.signal (from an interceptor or onRequest) must be an AbortSignal, got 1"
    })
  })

  it("what onRequest writes into the config is checked as an interceptor's answer, nothing sent", async () => {
    const before = server.requests.length
    const cases: ReadonlyArray<readonly [(config: Record<string, unknown>) => void, string]> = [
      [
        (config) => {
          config.url = 42
        },
        "RequestConfig.url (from an interceptor or onRequest) must be a string, got 42"
      ],
      [
        (config) => {
          config.url = "file:///etc/passwd"
        },
        'RequestConfig.url (from an interceptor or onRequest) must be an http: or https: URL, got a "file:" URL'
      ],
      [
        (config) => {
          config.url = "not a url"
        },
        "RequestConfig.url (from an interceptor or onRequest) must be an absolute http: or https: URL"
      ],
      [
        (config) => {
          config.signal = {}
        },
        "RequestConfig.signal (from an interceptor or onRequest) must be an AbortSignal, got an object"
      ],
      [
        (config) => {
          config.method = 42
        },
        "RequestConfig.method (from an interceptor or onRequest) must be a string, got 42"
      ],
      // what is no headers record: thrown at, or read as no headers (a Headers, a string)
      ...[undefined, null, new Headers({ "x-a": "1" }), "x-a: 1"].map(
        (headers) =>
          [
            (config: Record<string, unknown>) => {
              config.headers = headers
            },
            `RequestConfig.headers (from an interceptor or onRequest) must be an object, got ${
              headers === undefined
                ? "undefined"
                : headers === null
                  ? "null"
                  : typeof headers === "string"
                    ? '"x-a: 1"'
                    : "a Headers"
            }`
          ] as const
      ),
      [
        (config) => {
          Object.defineProperty(config, "headers", {
            get: () => {
              throw new Error("no headers here")
            }
          })
        },
        "RequestConfig (from an interceptor or onRequest) could not be read: no headers here"
      ],
      // fetch refuses a GET with a body, undici sent it: refused on every transport
      [
        (config) => {
          config.body = "kept"
        },
        "RequestConfig.body (from an interceptor or onRequest) must be absent from a GET request"
      ]
    ]
    for (const [write, error] of cases) {
      for (const transport of [{}, { fetch: globalThis.fetch }]) {
        const errors: Array<Error> = []
        const svc = createSvc(server.origin, {
          ...transport,
          timeout: 0,
          onRequest: (config) => write(config as never),
          onError: (e) => errors.push(e)
        })
        expect(await svc.get("/x")).toMatchObject({
          success: false,
          code: "INVALID_REQUEST",
          error
        })
        expect(errors).toMatchObject([{ _tag: "InvalidRequestError", message: error }])
      }
    }
    expect(server.requests.length).toBe(before)
  })

  it("a config whose fields an interceptor left on its prototype is sent as checked", async () => {
    const before = server.requests.length
    for (const transport of [{}, { fetch: globalThis.fetch }]) {
      const svc = createSvc(server.origin, transport)
      svc.addRequestInterceptor((config) => Object.create(config) as typeof config)
      expect(await svc.get("/inherited")).toMatchObject({ success: true, status: 200 })
    }
    expect(server.requests.slice(before).map((request) => request.path)).toEqual([
      "/inherited",
      "/inherited"
    ])
  })

  it("a config whose field reads undefined once, then something else, is sent as checked", async () => {
    const before = server.requests.length
    for (const [field, later] of [
      ["signal", {}],
      ["body", "smuggled"],
      ["timeout", -1]
    ] as const) {
      const svc = createSvc(server.origin)
      svc.addRequestInterceptor((config) => {
        let reads = 0
        return Object.defineProperty({ ...config }, field, {
          enumerable: true,
          get: () => (reads++ === 0 ? undefined : later)
        })
      })
      expect(await svc.get("/twice")).toMatchObject({ success: true, status: 200 })
    }
    const sent = server.requests.slice(before)
    expect(sent.map((request) => [request.path, request.body])).toEqual([
      ["/twice", ""],
      ["/twice", ""],
      ["/twice", ""]
    ])
  })

  it("a method an interceptor gives in lower case goes in upper case, on every transport (the retry rules read it so)", async () => {
    const before = server.requests.length
    for (const transport of [{}, { fetch: globalThis.fetch }]) {
      const svc = createSvc(server.origin, transport)
      svc.addRequestInterceptor((config) => ({ ...config, method: "put" as never }))
      expect(await svc.get("/x")).toMatchObject({ success: true, status: 200 })
    }
    expect(server.requests.slice(before).map((request) => request.method)).toEqual(["PUT", "PUT"])
  })

  it("the largest timer value is accepted", async () => {
    const response = await createSvc(server.origin, { timeout: 2 ** 31 - 1 }).get("/x")
    expect(response.success).toBe(true)
  })
})

describe("a timeout a timer cannot hold is refused at construction (security item 5)", () => {
  it.each([2 ** 31, 2 ** 40, Number.POSITIVE_INFINITY, -1, Number.NaN])("%s ms", (timeout) => {
    expect(() => createSvc(server.origin, { timeout })).toThrow(RangeError)
    expect(() => createSvc(server.origin, { timeout })).toThrow(/^timeout must be between 0/)
  })

  it("as a Duration too", () => {
    expect(() => createSvc(server.origin, { timeout: Duration.days(30) })).toThrow(RangeError)
    expect(() => createSvc(server.origin, { timeout: "30 days" })).toThrow(/^timeout must be/)
  })
})

describe("InvalidRequestError in the Effect API", () => {
  it.effect("a tagged error naming the argument, never a defect", () =>
    Effect.gen(function* () {
      const error = yield* withClient(server.origin, undefined, (client) =>
        Effect.flip(client.post("/x", { n: 1n }))
      )
      expect(error._tag).toBe("InvalidRequestError")
      expect(error.code).toBe("INVALID_REQUEST")
      if (error._tag === "InvalidRequestError") expect(error.argument).toBe("body")
      const signal = yield* withClient(server.origin, undefined, (client) =>
        Effect.flip(client.get("/x", { signal: {} as never }))
      )
      expect(signal).toMatchObject({ _tag: "InvalidRequestError", argument: "options.signal" })
    })
  )

  it.effect("what onRequest writes into the config: typed, never a defect", () =>
    Effect.gen(function* () {
      const write =
        (field: string, value: unknown) =>
        (config: unknown): void => {
          ;(config as Record<string, unknown>)[field] = value
        }
      for (const [field, value] of [
        ["url", 42],
        ["signal", {}],
        ["method", Object.create(null)]
      ] as const) {
        const error = yield* withClient(
          server.origin,
          { onRequest: write(field, value) },
          (client) => Effect.flip(client.get("/x"))
        )
        expect(error).toMatchObject({
          _tag: "InvalidRequestError",
          argument: `RequestConfig.${field}`
        })
      }
    })
  )

  it.effect(
    "a body that cannot be read (a file changed since, a Blob that rejects): typed, never a defect",
    () =>
      Effect.gen(function* () {
        const before = server.requests.length
        const error = yield* withClient(server.origin, undefined, (client) =>
          Effect.flip(client.post("/x", new UnreadableBlob(["x"])))
        )
        expect(error).toMatchObject({ _tag: "InvalidRequestError", argument: "body" })
        expect(error.message).toBe("body could not be read: The blob could not be read")
        const gone = yield* withClient(server.origin, undefined, (client) =>
          Effect.flip(client.post("/x", detached()))
        )
        expect(gone).toMatchObject({ _tag: "InvalidRequestError", argument: "body" })
        expect(server.requests.length).toBe(before)
      })
  )
})
