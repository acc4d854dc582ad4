/**
 * The devices part of the demo's story, written once for its four tellings (`demo.ts`,
 * `demo-effect.ts` and their Effect 3 twins in `v3/`), told between Carol's and Alice's parts: Bob
 * signs in on a laptop and a phone, lists his devices, signs in again on the laptop (the id
 * rotates), ends his other devices; someone guessing passwords is locked out; the laptop's session
 * expires and five requests at once renew it with one refresh; a logout ends the laptop's refresh
 * token too.
 */
import { Agent, fetch as undiciFetch } from "undici"
import { dataHas, errorIs, type Outcome, type Step } from "./steps.js"

/** The account the password guesser tries: nobody's, so nothing later in the story is locked. */
export const GUESSER = { email: "dave@example.com", password: "guess", attempts: 5 } as const

/**
 * Where the guesser's requests come from: an address of their own, so that the throttle's
 * `address:` key that locks them is not the one every other step signs in from (127.0.0.1).
 */
export const GUESSER_ADDRESS = "127.0.0.2"

/** How many requests the laptop sends at once once its session has expired. */
export const BURST = 5

/**
 * A `fetch` whose connections leave from `localAddress` (on loopback, 127.0.0.2 and up reach a
 * server on 127.0.0.1): the client's `fetch` option, for a client that is another machine.
 */
export const fetchFrom = (localAddress: string) => {
  const dispatcher = new Agent({ localAddress })
  return (input: string | URL | Request, init?: RequestInit): Promise<Response> =>
    undiciFetch(input as string, {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher
    }) as unknown as Promise<Response>
}

/** A check that the response's devices are marked `current` as `expected`, in order. */
const currentIs =
  (expected: ReadonlyArray<boolean>) =>
  (response: Outcome): string | undefined => {
    const got = Array.isArray(response.data)
      ? response.data.map((device: { readonly current?: unknown }) => device.current)
      : undefined
    return JSON.stringify(got) === JSON.stringify(expected)
      ? undefined
      : `expected current ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`
  }

/** A check that a refusal says when to try again: `Retry-After` in whole seconds. */
const retryAfterGiven = (response: Outcome): string | undefined => {
  const retryAfter = response.headers?.["retry-after"]
  return retryAfter !== undefined && /^[1-9][0-9]*$/.test(retryAfter)
    ? errorIs("Too many attempts")(response)
    : `expected a Retry-After in seconds, got ${JSON.stringify(retryAfter)}`
}

const both =
  (...checks: ReadonlyArray<(response: Outcome) => string | undefined>) =>
  (response: Outcome): string | undefined => {
    for (const check of checks) {
      const wrong = check(response)
      if (wrong !== undefined) return wrong
    }
    return undefined
  }

/** The steps, in the order told. */
export const DEVICE_STEPS = {
  laptop: { name: "Bob signs in on his laptop", request: "POST /login", status: 200 },
  phone: { name: "Bob signs in on his phone", request: "POST /login", status: 200 },
  // oldest first: the laptop's, which asks, is the current one
  devices: {
    name: "Bob lists his devices",
    request: "GET /sessions · laptop",
    status: 200,
    check: currentIs([true, false])
  },
  // a login that presents a live session of the same user rotates it (session fixation)
  relogin: {
    name: "Laptop signs in again: new id",
    request: "POST /login · with its session",
    status: 200
  },
  oldId: {
    name: "The laptop's old id is refused",
    request: "GET /me · the id before",
    status: 401
  },
  endOthers: {
    name: "Bob ends his other devices",
    request: "POST /sessions/others · laptop",
    status: 200,
    check: dataHas("ended", 1)
  },
  phoneRefused: { name: "The phone is signed out", request: "GET /me · phone", status: 401 },
  phoneRefresh: {
    name: "The phone cannot refresh",
    request: "POST /refresh · phone's token",
    status: 401,
    check: errorIs("Invalid refresh token")
  },
  guesses: {
    name: `${GUESSER.attempts} wrong passwords for Dave`,
    request: `POST /login ×${GUESSER.attempts} · from ${GUESSER_ADDRESS}`,
    status: 401
  },
  locked: {
    name: "The next try is locked out",
    request: `POST /login · from ${GUESSER_ADDRESS}`,
    status: 429,
    check: retryAfterGiven
  },
  expire: {
    name: "The laptop's session expires",
    request: "POST /demo/expire (demo only)",
    status: 200
  },
  burst: {
    name: `${BURST} requests at once, 1 refresh`,
    request: `GET /me ×${BURST} · refreshSession`,
    status: 200,
    check: both(dataHas("succeeded", BURST), dataHas("refreshes", 1))
  },
  laptopOut: { name: "The laptop signs out", request: "POST /logout", status: 200 },
  laptopRefresh: {
    name: "Its refresh token is ended too",
    request: "POST /refresh · laptop's token",
    status: 401
  }
} as const satisfies Record<string, Step>

/** The first of the guesses' answers that is not a 401 (a guess that got in), else the last. */
export const guessesOutcome = <R extends Outcome>(answers: ReadonlyArray<R>): R =>
  answers.find((answer) => answer.status !== 401) ?? (answers[answers.length - 1] as R)

/**
 * The burst as one row: how many of the requests succeeded, and how many refreshes the server
 * made (`refreshes`, as its refresh answered it); the first failure's status and code if any.
 */
export const burstOutcome = (answers: ReadonlyArray<Outcome>, refreshes: number): Outcome => {
  const failed = answers.find((answer) => !answer.success)
  return {
    success: failed === undefined,
    status: failed?.status ?? 200,
    ...(failed === undefined ? {} : { error: failed.error, code: failed.code }),
    data: {
      requests: answers.length,
      succeeded: answers.filter((answer) => answer.success).length,
      refreshes
    }
  }
}
