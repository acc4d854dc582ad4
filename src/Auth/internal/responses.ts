import * as HttpServerResponse from "effect/http/HttpServerResponse"

/** `{"error": text}` as `application/json`. */
export const errorResponse = (
  status: number,
  text: string
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe({ error: text }, { status })
