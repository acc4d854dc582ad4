/**
 * The messages of the client's failures, the same on both Effect lines. A message names the
 * request's method and its URL without query string, fragment or user info: never what a query or
 * user info holds, never a session id.
 */
import { urlForMessage } from "./url.js"

/** Where a request went, for a message: `: GET http://h/api/x`, or nothing when unknown. */
const target = (method: string | undefined, url: string | undefined): string =>
  method === undefined || url === undefined ? "" : `: ${method} ${urlForMessage(url)}`

export const network = (error: {
  readonly reason: string
  readonly method?: string | undefined
  readonly url?: string | undefined
}): string => `Network error: ${error.reason}${target(error.method, error.url)}`

export const timeout = (error: {
  readonly timeoutMillis: number
  readonly total?: boolean | undefined
  readonly waitingFor?: string | undefined
  readonly method?: string | undefined
  readonly url?: string | undefined
}): string => {
  const limit = `Request timed out after ${error.timeoutMillis} ms${error.total ? " (totalTimeout)" : ""}`
  const waiting = error.waitingFor === undefined ? "" : ` waiting for ${error.waitingFor}`
  return `${limit}${waiting}${target(error.method, error.url)}`
}

export const aborted = "Request aborted"

export const decode = (error: { readonly detail: string }): string =>
  `Response data does not match the schema: ${error.detail}`

export const undecodable = (error: { readonly detail: string }): string =>
  `Response could not be decoded: ${error.detail}`

export const interceptor = (error: {
  readonly phase: "request" | "response"
  readonly detail: string
}): string =>
  `${error.phase === "request" ? "Request" : "Response"} interceptor failed: ${error.detail}`

export const invalidRequest = (error: { readonly argument: string; readonly reason: string }) =>
  `${error.argument} ${error.reason}`

export const tooLarge = (error: { readonly maxResponseBytes: number }): string =>
  `Response body larger than ${error.maxResponseBytes} bytes (maxResponseBytes)`
