/**
 * Request bodies: plain objects and arrays become JSON text; strings, `URLSearchParams`,
 * `FormData`, `Blob` and binary data are sent as they are. The wire form is a string (JSON, text,
 * forms: a transport can send it again across a 307) or bytes.
 */
import * as Effect from "effect/Effect"
import { InvalidRequestError } from "../SvcError.js"

/** A body ready for any transport, and the content type it implies. */
export interface WireBody {
  readonly body: string | Uint8Array | undefined
  readonly contentType: string | undefined
}

const none: WireBody = { body: undefined, contentType: undefined }

const isBlob = (body: unknown): body is Blob => typeof Blob !== "undefined" && body instanceof Blob

const isFormData = (body: unknown): body is FormData =>
  typeof FormData !== "undefined" && body instanceof FormData

/**
 * Objects and arrays as JSON text. A value JSON cannot carry (a function, a Symbol, a BigInt, a
 * circular object) is the caller's mistake: nothing is sent.
 */
const toJson = (body: unknown): Effect.Effect<WireBody, InvalidRequestError> => {
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
  return Effect.succeed({ body: text, contentType: "application/json" })
}

/**
 * FormData serialised by the platform's own `Response`, so that every transport sends the same
 * multipart body and boundary (Node's global FormData is not the undici package's).
 */
const multipart = (form: FormData): Effect.Effect<WireBody> =>
  Effect.promise(async () => {
    const encoded = new Response(form)
    return {
      body: new Uint8Array(await encoded.arrayBuffer()),
      contentType: encoded.headers.get("content-type") ?? "multipart/form-data"
    }
  })

/** The wire body for a request body given by the caller. */
export const encodeBody = (body: unknown): Effect.Effect<WireBody, InvalidRequestError> => {
  if (body === undefined) return Effect.succeed(none)
  if (typeof body === "string") {
    return Effect.succeed({ body, contentType: "text/plain;charset=UTF-8" })
  }
  if (body instanceof URLSearchParams) {
    return Effect.succeed({
      body: body.toString(),
      contentType: "application/x-www-form-urlencoded;charset=UTF-8"
    })
  }
  if (isFormData(body)) return multipart(body)
  if (body instanceof ArrayBuffer) {
    return Effect.succeed({ body: new Uint8Array(body), contentType: "application/octet-stream" })
  }
  if (ArrayBuffer.isView(body)) {
    return Effect.succeed({
      body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
      contentType: "application/octet-stream"
    })
  }
  if (isBlob(body)) {
    return Effect.map(
      Effect.promise(() => body.arrayBuffer()),
      (buffer): WireBody => ({
        body: new Uint8Array(buffer),
        // a Blob without a type gets no Content-Type, as with fetch
        contentType: body.type || undefined
      })
    )
  }
  return toJson(body)
}
