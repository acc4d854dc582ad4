/**
 * The Effect API over a client state and a transport. The Promise facade runs these programs.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { defaultTransport } from "#transport"
import { QueryBuilder, type QueryRequest } from "../../Query/index.js"
import type { HttpMethod, SvcClientService, SvcConfig } from "../SvcClient.js"
import { type ClientState, makeState, request } from "./client.js"
import { assignHeaders, checkHeader } from "./headers.js"
import {
  checkSessionId,
  forgetSession,
  persistSession,
  rememberSession,
  resolveSession,
  unpersistSession
} from "./session.js"
import { fetchTransport } from "./transport.fetch.js"
import type { Transport } from "./transport.js"

const checkFunction = (value: unknown, name: string): void => {
  if (typeof value !== "function") throw new TypeError(`${name} must be a function`)
}

/** Header and interceptor changes, shared by both faces; they throw on bad input. */
export const setHeader = (state: ClientState, name: string, value: string): void => {
  checkHeader(name, value)
  assignHeaders(state.headers, { [name]: value })
}

export const removeHeader = (state: ClientState, name: string): void => {
  if (typeof name !== "string") throw new TypeError("header name must be a string")
  delete state.headers[name.toLowerCase()]
}

export const getConfig = (state: ClientState): SvcConfig => ({
  ...state.config,
  headers: { ...state.headers }
})

/** Adds an interceptor; anything but a function throws a `TypeError`. */
export const addInterceptor = <F>(interceptors: Array<F>, interceptor: F): void => {
  checkFunction(interceptor, "interceptor")
  interceptors.push(interceptor)
}

/** Runs a query builder's request through the client. */
export const queryRequest = (state: ClientState, transport: Transport, query: QueryRequest) =>
  request(state, transport, query.method as HttpMethod, query.url, query.body, {
    headers: query.headers
  })

/** The Effect API of a client state, over `transport`. */
export const fromState = (state: ClientState, transport: Transport): SvcClientService => ({
  get: (endpoint, options) => request(state, transport, "GET", endpoint, undefined, options),
  delete: (endpoint, options) => request(state, transport, "DELETE", endpoint, undefined, options),
  post: (endpoint, body, options) => request(state, transport, "POST", endpoint, body, options),
  put: (endpoint, body, options) => request(state, transport, "PUT", endpoint, body, options),
  patch: (endpoint, body, options) => request(state, transport, "PATCH", endpoint, body, options),
  query: (endpoint) =>
    new QueryBuilder(endpoint, (query) => queryRequest(state, transport, query) as never),
  getSessionId: () => Effect.map(resolveSession(state.session), Option.fromNullable),
  hasSession: () => Effect.map(resolveSession(state.session), (id) => id !== undefined),
  setSessionId: (id) =>
    Effect.suspend(() => {
      const redacted = Redacted.isRedacted(id)
        ? Redacted.make(checkSessionId(Redacted.value(id)))
        : Redacted.make(checkSessionId(id))
      rememberSession(state.session, redacted)
      return persistSession(state.session, redacted)
    }),
  clearSession: () =>
    Effect.suspend(() => {
      forgetSession(state.session)
      return unpersistSession(state.session)
    }),
  setHeader: (name, value) => Effect.sync(() => setHeader(state, name, value)),
  removeHeader: (name) => Effect.sync(() => removeHeader(state, name)),
  addRequestInterceptor: (interceptor) =>
    Effect.sync(() => addInterceptor(state.requestInterceptors, interceptor)),
  addResponseInterceptor: (interceptor) =>
    Effect.sync(() => addInterceptor(state.responseInterceptors, interceptor)),
  getBaseUrl: () => state.baseUrl,
  getConfig: () => getConfig(state)
})

/** The Effect API over the facade's transport: `config.fetch`, else the runtime's. */
export const fromDefaultTransport = (baseUrl: string, config?: SvcConfig): SvcClientService =>
  fromState(
    makeState(baseUrl, config),
    config?.fetch === undefined ? defaultTransport : fetchTransport(config.fetch)
  )
