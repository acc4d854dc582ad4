/**
 * Request bodies: plain objects and arrays become JSON; strings, `FormData`, `URLSearchParams`,
 * `Blob` and binary data are sent as they are.
 */
import * as HttpBody from "@effect/platform/HttpBody"
import * as Effect from "effect/Effect"
import { InvalidRequestError } from "../SvcError.js"

const isBlob = (body: unknown): body is Blob => typeof Blob !== "undefined" && body instanceof Blob

const isFormData = (body: unknown): body is FormData =>
  typeof FormData !== "undefined" && body instanceof FormData

/**
 * Objects and arrays as JSON text. A value JSON cannot carry (a function, a Symbol, a BigInt, a
 * circular object) is the caller's mistake: nothing is sent.
 */
const toJson = (body: unknown): Effect.Effect<HttpBody.HttpBody, InvalidRequestError> => {
  if (typeof body === "function" || typeof body === "symbol") {
    return Effect.fail(
      new InvalidRequestError({
        argument: "body",
        reason: `cannot be sent: a ${typeof body} has no JSON form`
      })
    )
  }
  let text: string | undefined
  try {
    text = JSON.stringify(body)
  } catch (cause) {
    return Effect.fail(
      new InvalidRequestError({
        argument: "body",
        reason: `cannot be encoded as JSON: ${cause instanceof Error ? cause.message : String(cause)}`,
        cause
      })
    )
  }
  if (text === undefined) {
    return Effect.fail(
      new InvalidRequestError({ argument: "body", reason: "cannot be encoded as JSON" })
    )
  }
  return Effect.succeed(HttpBody.text(text, "application/json"))
}

/**
 * FormData serialised by the platform's own `Response`, so that any transport sends the same
 * multipart body and boundary (Node's global FormData is not the undici package's).
 */
const multipart = (form: FormData): Effect.Effect<HttpBody.HttpBody> =>
  Effect.promise(async () => {
    const encoded = new Response(form)
    const bytes = new Uint8Array(await encoded.arrayBuffer())
    return HttpBody.uint8Array(bytes, encoded.headers.get("content-type") ?? "multipart/form-data")
  })

/** The wire body for a request body given by the caller. */
export const encodeBody = (
  body: unknown
): Effect.Effect<HttpBody.HttpBody, InvalidRequestError> => {
  if (body === undefined) return Effect.succeed(HttpBody.empty)
  if (typeof body === "string") return Effect.succeed(HttpBody.text(body))
  if (body instanceof URLSearchParams) {
    return Effect.succeed(HttpBody.text(body.toString(), "application/x-www-form-urlencoded"))
  }
  if (isFormData(body)) return multipart(body)
  if (body instanceof ArrayBuffer) return Effect.succeed(HttpBody.uint8Array(new Uint8Array(body)))
  if (ArrayBuffer.isView(body)) {
    return Effect.succeed(
      HttpBody.uint8Array(new Uint8Array(body.buffer, body.byteOffset, body.byteLength))
    )
  }
  if (isBlob(body)) {
    return Effect.map(
      Effect.promise(() => body.arrayBuffer()),
      (buffer) =>
        HttpBody.uint8Array(new Uint8Array(buffer), body.type || "application/octet-stream")
    )
  }
  return toJson(body)
}
