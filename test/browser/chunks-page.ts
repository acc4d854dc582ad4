import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createSvc, type StandardSchemaV1, SvcClient, type SvcError } from "../../src/v3/index.js"

/** A Standard Schema validator written by hand (no library), which takes any value. */
const anything: StandardSchemaV1<unknown> = {
  "~standard": { version: 1, vendor: "page", validate: (value) => ({ value }) }
}

/** How an Effect API program ended: its typed failure, or the defect it died with. */
const ended = (program: Effect.Effect<unknown, SvcError>) =>
  Effect.runPromise(
    Effect.match(program, {
      onFailure: (error) => ({ failure: `${error._tag} ${error.code}: ${error.message}` }),
      onSuccess: () => ({ success: true })
    })
  ).catch((defect: unknown) => ({ defect: String(defect) }))

/**
 * What each face answers when the code it loads on demand cannot come: a `stream`, an `sse`, a
 * GET with a Standard Schema, a GET answered with a redirect and one answered with a failure whose
 * status line has no reason phrase, on the facade and on the Effect API, and what `onError` heard.
 */
const lazyFailures = async (api: string) => {
  const reported: Array<string> = []
  const config = { retryAttempts: 0, onError: (error: Error) => void reported.push(error.message) }
  const svc = createSvc(api, config)
  const answer = (response: { success: boolean; code?: string; error?: string }) =>
    response.success ? "success" : `${response.code}: ${response.error}`
  const facade = {
    stream: answer(await svc.stream("/lazy")),
    sse: answer(await svc.sse("/lazy")),
    standard: answer(await svc.get("/lazy", { schema: anything })),
    redirect: answer(await svc.get("/redirect")),
    reason: answer(await svc.get("/noreason"))
  }
  // no trace headers: the API allows no more than the session header across origins
  const client = await Effect.runPromise(
    Effect.provide(SvcClient, SvcClient.layerDefault(api, { ...config, tracerPropagation: false }))
  )
  const effectApi = {
    stream: await ended(Stream.runDrain(client.stream("/lazy"))),
    sse: await ended(Stream.runDrain(client.sse("/lazy"))),
    standard: await ended(client.get("/lazy", { schema: anything })),
    redirect: await ended(client.get("/redirect")),
    reason: await ended(client.get("/noreason"))
  }
  return { facade, effectApi, reported }
}

Object.assign(window, { lazyFailures })
