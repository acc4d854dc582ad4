import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { ErrorText } from "../../../core/authTexts.js"

export { ErrorText }

/** `{"error": text}` as `application/json`. */
export const errorResponse = (
  status: number,
  text: string
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson({ error: text }, { status })
