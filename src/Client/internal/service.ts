/**
 * The Effect API over a client state and a transport. The Promise facade runs these programs.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { defaultTransport } from "#transport"
import {
  addInterceptor,
  checkedSessionId,
  queryRequest,
  removeHeader,
  setHeader
} from "../../common/client.js"
import {
  forgetSession,
  persistSession,
  rememberSession,
  resolveSession,
  unpersistSession
} from "../../common/session.js"
import type { ApiSuccess } from "../../core/ApiResponse.js"
import { fetchTransport } from "../../core/transport.fetch.js"
import { QueryBuilder } from "../../Query/index.js"
import type {
  ClientFace,
  ClientSurface,
  OnFace,
  RequestResult,
  SvcClientService,
  SvcConfig
} from "../SvcClient.js"
import type { SvcError } from "../SvcError.js"
import { type ClientState, makeState, request } from "./client.js"
import { fromSend, type Transport } from "./exchange.js"

/** The config the client was made with (this line's `SvcConfig`), with its current headers. */
export const getConfig = (state: ClientState): SvcConfig => ({
  ...(state.config as SvcConfig),
  headers: { ...state.headers }
})

/**
 * How a face gives back what the client does: the Effect API hands its programs back; the Promise
 * facade runs them (facade.ts). Each member serves every method of one kind.
 */
export interface Face<F extends ClientFace> {
  /** A request. */
  readonly request: <A>(program: Effect.Effect<ApiSuccess<A>, SvcError>) => RequestResult<F, A>
  /** The session id the next request would send. */
  readonly sessionId: (
    program: Effect.Effect<Option.Option<Redacted.Redacted<string>>>
  ) => OnFace<F, Effect.Effect<Option.Option<Redacted.Redacted<string>>>, Promise<string | null>>
  /** Whether there is a session. */
  readonly hasSession: (
    program: Effect.Effect<boolean>
  ) => OnFace<F, Effect.Effect<boolean>, Promise<boolean>>
  /** A change made at once (a bad argument throws), then a program that never fails. */
  readonly changeThen: <A>(
    change: () => A,
    then: (changed: A) => Effect.Effect<void>
  ) => OnFace<F, Effect.Effect<void>, Promise<void>>
  /** A change made at once; a bad argument throws. */
  readonly change: (change: () => void) => OnFace<F, Effect.Effect<void>, void>
}

/** The Effect API's face: every method gives its program. */
export const effectFace: Face<"effect"> = {
  request: (program) => program,
  sessionId: (program) => program,
  hasSession: (program) => program,
  changeThen: (change, then) => Effect.suspend(() => then(change())),
  change: (change) => Effect.sync(change)
}

/** The client's surface over a client state and a transport, on one face: written once. */
export const fromState = <F extends ClientFace>(
  state: ClientState,
  transport: Transport,
  face: Face<F>
): ClientSurface<F> => ({
  get: (endpoint, options) =>
    face.request(request(state, transport, "GET", endpoint, undefined, options)),
  delete: (endpoint, options) =>
    face.request(request(state, transport, "DELETE", endpoint, undefined, options)),
  post: (endpoint, body, options) =>
    face.request(request(state, transport, "POST", endpoint, body, options)),
  put: (endpoint, body, options) =>
    face.request(request(state, transport, "PUT", endpoint, body, options)),
  patch: (endpoint, body, options) =>
    face.request(request(state, transport, "PATCH", endpoint, body, options)),
  query: <A>(endpoint: string) =>
    new QueryBuilder(endpoint, (query) =>
      face.request(queryRequest(state, transport, query) as Effect.Effect<ApiSuccess<A>, SvcError>)
    ),
  getSessionId: () =>
    face.sessionId(Effect.map(resolveSession(state.session), Option.fromNullishOr)),
  hasSession: () =>
    face.hasSession(Effect.map(resolveSession(state.session), (id) => id !== undefined)),
  setSessionId: (id) =>
    face.changeThen(
      () => {
        const checked = checkedSessionId(id)
        rememberSession(state.session, checked)
        return checked
      },
      (checked) => persistSession(state.session, checked)
    ),
  clearSession: () =>
    face.changeThen(
      () => forgetSession(state.session),
      () => unpersistSession(state.session)
    ),
  setHeader: (name, value) => face.change(() => setHeader(state, name, value)),
  removeHeader: (name) => face.change(() => removeHeader(state, name)),
  addRequestInterceptor: (interceptor) =>
    face.change(() => addInterceptor(state.requestInterceptors, interceptor)),
  addResponseInterceptor: (interceptor) =>
    face.change(() => addInterceptor(state.responseInterceptors, interceptor)),
  getBaseUrl: () => state.baseUrl,
  getConfig: () => getConfig(state)
})

/** The transport a config asks for: `config.fetch` when given, else `fallback`. */
export const transportFor = (
  config: SvcConfig | undefined,
  fallback: () => Transport
): Transport => (config?.fetch === undefined ? fallback() : fromSend(fetchTransport(config.fetch)))

/** The runtime's own transport (undici on Node, fetch elsewhere), for the facade and layerDefault. */
export const runtimeTransport: Transport = /*#__PURE__*/ fromSend(defaultTransport)

/** The Effect API over the facade's transport: `config.fetch`, else the runtime's. */
export const fromDefaultTransport = (baseUrl: string, config?: SvcConfig): SvcClientService =>
  fromState(
    makeState(baseUrl, config),
    transportFor(config, () => runtimeTransport),
    effectFace
  )
