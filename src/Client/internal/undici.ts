/**
 * A lean `HttpClient` over undici's dispatcher, for the facade on Node.
 *
 * `NodeHttpClient.layerUndici` pays, per request, for an `AbortController`, a response
 * `FinalizationRegistry` entry, a body `Readable` and the interruption wrappers of
 * `HttpClient.make`; measured here it ran at about a quarter of raw `undici.request`. The facade
 * reads every body in full, so this client dispatches directly, collects the body chunks as they
 * arrive and hands back a buffered response. Interruption aborts the dispatch, and the client
 * enforces each try's time limit itself (one timer instead of a racing fiber).
 */
import * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import type * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as UrlParams from "@effect/platform/UrlParams"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Dispatcher } from "undici"
import { enforcingClients, TimeLimitExceeded, timeLimits } from "./timeLimit.js"

type DispatchBody = Exclude<Dispatcher.DispatchOptions["body"], undefined>

const bodyOf = (body: HttpBody.HttpBody): Effect.Effect<DispatchBody> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed(null)
    case "Uint8Array":
      return Effect.succeed(body.body)
    case "Raw":
      return Effect.succeed(body.body as DispatchBody)
    case "FormData":
      return Effect.promise(
        async () => new Uint8Array(await new Response(body.formData).arrayBuffer())
      )
    case "Stream":
      return Effect.map(Stream.runCollect(body.stream).pipe(Effect.orDie), (chunks) =>
        Buffer.concat(Array.from(chunks))
      )
  }
}

/** Adds the body's content type and length unless the request set them. */
const headersOf = (request: HttpClientRequest.HttpClientRequest): Record<string, string> => {
  const body = request.body
  if (body._tag === "Empty") return request.headers
  const headers: Record<string, string> = { ...request.headers }
  if (body.contentType !== undefined && headers["content-type"] === undefined) {
    headers["content-type"] = body.contentType
  }
  if (body.contentLength !== undefined && headers["content-length"] === undefined) {
    headers["content-length"] = String(body.contentLength)
  }
  return headers
}

const decoder = new TextDecoder()

class BufferedResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly status: number,
    private readonly rawHeaders: Record<string, string | Array<string> | undefined>,
    private readonly bytes: Uint8Array
  ) {
    super()
  }

  get headers(): Headers.Headers {
    return Headers.fromInput(this.rawHeaders as Record<string, string | Array<string>>)
  }

  get cookies(): Cookies.Cookies {
    const setCookie = this.rawHeaders["set-cookie"]
    return setCookie === undefined ? Cookies.empty : Cookies.fromSetCookie(setCookie)
  }

  get remoteAddress(): Option.Option<string> {
    return Option.none()
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.sync(() => decoder.decode(this.bytes))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.try({
      try: () => {
        const text = decoder.decode(this.bytes)
        return text === "" ? null : (JSON.parse(text) as unknown)
      },
      catch: (cause) => this.decodeError(cause)
    })
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.sync(() => UrlParams.fromInput(new URLSearchParams(decoder.decode(this.bytes))))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.sync(() => this.bytes.slice().buffer as ArrayBuffer)
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.tryPromise({
      try: () =>
        new Response(this.bytes as Uint8Array<ArrayBuffer>, {
          headers: this.headers as Record<string, string>
        }).formData() as Promise<FormData>,
      catch: (cause) => this.decodeError(cause)
    })
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.succeed(this.bytes)
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }

  private decodeError(cause: unknown) {
    return new HttpClientError.ResponseError({
      request: this.request,
      response: this,
      reason: "Decode",
      cause
    })
  }
}

const transportError = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
  new HttpClientError.RequestError({ request, reason: "Transport", cause })

/**
 * Sends one request and collects its whole response. Interruption aborts it, and so does the
 * request's time limit (see `timeLimit.ts`), failing with a `TimeLimitExceeded` cause.
 */
const dispatch = (
  dispatcher: Dispatcher,
  request: HttpClientRequest.HttpClientRequest,
  url: URL,
  body: DispatchBody
) =>
  Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
    let controller: Dispatcher.DispatchController | undefined
    let pendingAbort: Error | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    let settled = false
    let status = 0
    let headers: Record<string, string | Array<string> | undefined> = {}
    const chunks: Array<Buffer> = []
    const settle = (outcome: Effect.Effect<BufferedResponse, HttpClientError.RequestError>) => {
      if (settled) return
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      resume(outcome)
    }
    const abort = (reason: Error) => {
      if (controller === undefined) pendingAbort = reason
      else controller.abort(reason)
    }
    const limit = timeLimits.get(request)
    if (limit !== undefined) {
      timer = setTimeout(() => {
        const exceeded = new TimeLimitExceeded(limit)
        settle(Effect.fail(transportError(request, exceeded)))
        abort(exceeded)
      }, limit)
    }
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: (started) => {
        controller = started
        if (pendingAbort !== undefined) started.abort(pendingAbort)
      },
      onResponseStart: (_controller, statusCode, responseHeaders) => {
        status = statusCode
        headers = responseHeaders as Record<string, string | Array<string> | undefined>
      },
      onResponseData: (_controller, chunk) => {
        chunks.push(chunk)
      },
      onResponseEnd: () => {
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
        settle(Effect.succeed(new BufferedResponse(request, status, headers, bytes)))
      },
      onResponseError: (_controller, error) => {
        settle(Effect.fail(transportError(request, error)))
      }
    }
    try {
      dispatcher.dispatch(
        {
          origin: url.origin,
          path: url.pathname + url.search,
          method: request.method as Dispatcher.HttpMethod,
          headers: headersOf(request),
          body,
          // the time limit is enforced above (per try; none when the client's timeout is 0)
          headersTimeout: 0,
          bodyTimeout: 0
        },
        handler
      )
    } catch (cause) {
      settle(Effect.fail(transportError(request, cause)))
    }
    return Effect.sync(() => {
      settled = true
      if (timer !== undefined) clearTimeout(timer)
      abort(new Error("Request interrupted"))
    })
  })

/** An `HttpClient` over `dispatcher` that buffers every response body. */
export const make = (dispatcher: Dispatcher): HttpClient.HttpClient => {
  const client = HttpClient.makeWith(
    Effect.flatMap(
      (
        request
      ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
        const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
        if (url._tag === "Left") {
          return Effect.fail(
            new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left })
          )
        }
        return Effect.flatMap(bodyOf(request.body), (body) =>
          dispatch(dispatcher, request, url.right, body)
        )
      }
    ),
    Effect.succeed as HttpClient.HttpClient.Preprocess<never, never>
  )
  enforcingClients.add(client)
  return client
}
