import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/** `{"error": text}` as `application/json`. */
export const errorResponse = (
  status: number,
  text: string
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson({ error: text }, { status })
