/**
 * The Promise facade: runs the Effect program over the default transport and folds failures into
 * `ApiResponse`. It never throws from a request and never rejects.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import { layer as transport } from "#transport"
import { QueryBuilder } from "../../Query/index.js"
import type { ApiResponse, ResponseMeta } from "../ApiResponse.js"
import type { HttpMethod, RequestOptions, SvcClient, SvcConfig } from "../SvcClient.js"
import type { SvcError } from "../SvcError.js"
import { type ClientState, makeState, request } from "./client.js"
import { liftEnvelope } from "./response.js"
import * as service from "./service.js"
import {
  checkSessionId,
  forgetSession,
  persistSession,
  rememberSession,
  resolveSession,
  unpersistSession
} from "./session.js"

let runtime: ManagedRuntime.ManagedRuntime<HttpClient.HttpClient, never> | undefined

/** One runtime for every facade, built on first use. */
const getRuntime = () => {
  runtime ??= ManagedRuntime.make(transport)
  return runtime
}

/** The `ApiResponse` for a failure. */
export const foldError = (error: SvcError): ApiResponse<never> => {
  switch (error._tag) {
    case "HttpError": {
      const lifted = liftEnvelope(error.body)
      const response: {
        success: false
        status: number
        error: string
        code: "HTTP_ERROR"
        data?: never
        message?: string
        meta?: ResponseMeta
      } = { success: false, status: error.status, error: error.error, code: "HTTP_ERROR" }
      if (lifted.data !== undefined) response.data = lifted.data as never
      if (lifted.message !== undefined) response.message = lifted.message
      if (lifted.meta !== undefined) response.meta = lifted.meta
      return response
    }
    case "DecodeError":
      return { success: false, status: error.status, error: error.message, code: error.code }
    default:
      return { success: false, status: 0, error: error.message, code: error.code }
  }
}

const describeDefect = (cause: Cause.Cause<never>): Error => {
  const defect = Cause.squash(cause)
  if (defect instanceof Error) return defect
  return new Error(Cause.isInterruptedOnly(cause) ? "Request interrupted" : String(defect))
}

/** Runs a request program to an `ApiResponse`; resolves in every case. */
const run = <A>(
  state: ClientState,
  program: Effect.Effect<ApiResponse<A>, SvcError, HttpClient.HttpClient>
): Promise<ApiResponse<A>> => {
  const settle = (exit: Exit.Exit<ApiResponse<A>, SvcError>): ApiResponse<A> => {
    if (Exit.isSuccess(exit)) return exit.value
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some") return foldError(failure.value)
    return unexpected(describeDefect(exit.cause as Cause.Cause<never>))
  }
  const unexpected = (cause: unknown): ApiResponse<A> => {
    const error = cause instanceof Error ? cause : new Error(String(cause))
    state.report(error)
    return {
      success: false,
      status: 0,
      error: error.message || "Request failed",
      code: "NETWORK_ERROR"
    }
  }
  try {
    return getRuntime()
      .runPromiseExit(Effect.withTracerEnabled(program, false))
      .then(settle, unexpected)
  } catch (cause) {
    return Promise.resolve(unexpected(cause))
  }
}

const runVoid = (state: ClientState, program: Effect.Effect<void>): Promise<void> =>
  getRuntime()
    .runPromise(program)
    .catch((cause: unknown) =>
      state.report(cause instanceof Error ? cause : new Error(String(cause)))
    )

type Facade = Pick<
  SvcClient,
  | "get"
  | "delete"
  | "post"
  | "put"
  | "patch"
  | "query"
  | "getSessionId"
  | "hasSession"
  | "setSessionId"
  | "clearSession"
  | "setHeader"
  | "removeHeader"
  | "addRequestInterceptor"
  | "addResponseInterceptor"
  | "getBaseUrl"
  | "getConfig"
>

/** The facade's methods over a fresh client state. */
export const make = (baseUrl: string, config?: SvcConfig): Facade => {
  const state = makeState(baseUrl, config)
  const send = <A, I>(
    method: HttpMethod,
    endpoint: string,
    body: unknown,
    options: RequestOptions<A, I> | undefined
  ): Promise<ApiResponse<A>> => run(state, request(state, method, endpoint, body, options))
  return {
    get: (endpoint, options) => send("GET", endpoint, undefined, options),
    delete: (endpoint, options) => send("DELETE", endpoint, undefined, options),
    post: (endpoint, body, options) => send("POST", endpoint, body, options),
    put: (endpoint, body, options) => send("PUT", endpoint, body, options),
    patch: (endpoint, body, options) => send("PATCH", endpoint, body, options),
    query: (endpoint) =>
      new QueryBuilder(
        endpoint,
        (query) => run(state, service.queryRequest(state, query)) as never
      ),
    getSessionId: () =>
      getRuntime()
        .runPromise(resolveSession(state.session))
        .then(
          (id) => (id === undefined ? null : Redacted.value(id)),
          () => null
        ),
    hasSession: () =>
      getRuntime()
        .runPromise(resolveSession(state.session))
        .then(
          (id) => id !== undefined,
          () => false
        ),
    setSessionId: (id) => {
      const redacted = Redacted.make(checkSessionId(id))
      rememberSession(state.session, redacted)
      return runVoid(state, persistSession(state.session, redacted))
    },
    clearSession: () => {
      forgetSession(state.session)
      return runVoid(state, unpersistSession(state.session))
    },
    setHeader: (name, value) => service.setHeader(state, name, value),
    removeHeader: (name) => service.removeHeader(state, name),
    addRequestInterceptor: (interceptor) => {
      service.checkFunction(interceptor, "interceptor")
      state.requestInterceptors.push(interceptor)
    },
    addResponseInterceptor: (interceptor) => {
      service.checkFunction(interceptor, "interceptor")
      state.responseInterceptors.push(interceptor)
    },
    getBaseUrl: () => state.baseUrl,
    getConfig: () => service.getConfig(state)
  }
}
