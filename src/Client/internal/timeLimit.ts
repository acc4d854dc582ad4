/**
 * Time limits that a transport enforces itself. The generic timeout races the try against a timer
 * in a forked fiber; a transport that can abort its own dispatch does the same with one timer and
 * no fiber, which matters on the facade's hot path.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"

/** Clients that honour {@link timeLimits}. */
export const enforcingClients = new WeakSet<HttpClient.HttpClient>()

/** The time limit of each try of a request, in milliseconds, for enforcing clients. */
export const timeLimits = new WeakMap<HttpClientRequest.HttpClientRequest, number>()

/** The cause of a transport failure that is the time limit running out. */
export class TimeLimitExceeded extends Error {
  constructor(readonly timeoutMillis: number) {
    super(`Request timed out after ${timeoutMillis} ms`)
    this.name = "TimeLimitExceeded"
  }
}
