/**
 * The client inside Bun, Deno and workerd: an HTTP handler that runs each call of the conformance
 * suite (`POST /call`, a `Call`) with the client the call names, and answers its `ApiResponse`
 * with what `onError` saw. Bundled per Effect line (the Effect 4 bundle resolves these imports to
 * the root entry and Effect 4), with the package's `imports` as that runtime resolves them: the
 * fetch transport.
 */
import * as Layer from "effect/Layer"
import { createSvc, SvcClient, type SvcConfig } from "../../src/v3/Client/index.js"
import type { ClientUnderTest } from "../Client/conformance/suite.js"
import { effectClient } from "../Client/effectClient.js"
import * as FetchHttpClient from "./fetchHttpClient.js"
import { type Answer, type Api, type Call, decode, encode, type SeenError } from "./wire.js"

const clients: Record<Api, (baseUrl: string, config: SvcConfig) => ClientUnderTest> = {
  facade: (baseUrl, config) => createSvc(baseUrl, config),
  layerDefault: effectClient(SvcClient.layerDefault),
  "layer(FetchHttpClient)": effectClient((baseUrl, config) =>
    SvcClient.layer(baseUrl, config).pipe(Layer.provide(FetchHttpClient.layer))
  )
}

const seen = (error: unknown): SeenError => {
  const e = error as { name?: unknown; message?: unknown; stack?: unknown; cause?: unknown }
  return {
    name: String(e?.name),
    message: String(e?.message),
    json: JSON.stringify(error) ?? "",
    text: String(error),
    stack: String(e?.stack),
    cause: String(e?.cause)
  }
}

const run = async (call: Call): Promise<Answer> => {
  const errors: Array<SeenError> = []
  const controller = new AbortController()
  // the test's signal: aborts when the test's abort channel answers (waited on from this request,
  // as a signal in a worker belongs to the request that made it)
  const channel = new AbortController()
  if (call.abortUrl !== null) {
    fetch(call.abortUrl, { signal: channel.signal }).then(
      async (aborted) => {
        if ((await aborted.text()) === "aborted") controller.abort()
      },
      () => undefined
    )
  }
  const stand = {
    function: () => (error: unknown) => errors.push(seen(error)),
    signal: () => controller.signal
  }
  try {
    const client = clients[call.api](call.baseUrl, decode(call.config, stand) as SvcConfig)
    const options = decode(call.options, stand) as Record<string, unknown> | undefined
    const response =
      call.method === "get"
        ? await client.get(call.endpoint, options)
        : await client[call.method](call.endpoint, decode(call.body), options)
    return { response: await encode(response), errors }
  } finally {
    channel.abort()
  }
}

/** Answers the test's requests. */
export const handle = async (request: Request): Promise<Response> => {
  const url = new URL(request.url)
  if (url.pathname !== "/call") return new Response("not found", { status: 404 })
  try {
    return Response.json(await run((await request.json()) as Call))
  } catch (cause) {
    // the client never rejects: this is the harness failing, shown to the test as it is
    return new Response(String((cause as Error)?.stack ?? cause), { status: 500 })
  }
}
