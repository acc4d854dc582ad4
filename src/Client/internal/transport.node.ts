/**
 * The facade's default transport on Node: undici, through the lean client of `./undici.ts`, with
 * one connection pool (an undici `Agent`) closed when the runtime is disposed.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Agent } from "undici"
import { make } from "./undici.js"

export const layer: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.acquireRelease(
    Effect.sync(() => new Agent()),
    (agent) => Effect.promise(() => agent.close())
  ).pipe(Effect.map(make))
)
