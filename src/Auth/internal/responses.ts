import { HttpServerResponse } from "effect/http"

/** `{"error": text}` as `application/json`. */
export const errorResponse = (
  status: number,
  text: string
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.jsonUnsafe({ error: text }, { status })
