/**
 * Request bodies: plain objects and arrays become JSON text; strings, `URLSearchParams`,
 * `FormData`, `Blob` and binary data are sent as they are. The wire form is a string (JSON, text,
 * forms: a transport can send it again across a 307) or bytes.
 */
import { describe, messageOf } from "./describe.js"
import type { InvalidArgument } from "./options.js"

/** A body ready for any transport, and the content type it implies. */
export interface WireBody {
  readonly body: string | Uint8Array | undefined
  readonly contentType: string | undefined
}

const none: WireBody = { body: undefined, contentType: undefined }

/** A value's built-in kind, whatever its realm: `[object ArrayBuffer]`, `[object Object]`. */
const tagOf = (value: unknown): string => Object.prototype.toString.call(value)

const isBlob = (body: unknown): body is Blob => typeof Blob !== "undefined" && body instanceof Blob

const isFormData = (body: unknown): body is FormData =>
  typeof FormData !== "undefined" && body instanceof FormData

/**
 * Objects and arrays as JSON text. A value JSON cannot carry (a function, a Symbol, a BigInt, a
 * circular object) is the caller's mistake: nothing is sent.
 */
const toJson = (body: unknown): WireBody | InvalidArgument => {
  if (typeof body === "function" || typeof body === "symbol") {
    return invalidBody(`cannot be sent: a ${typeof body} has no JSON form`)
  }
  // a Node stream (a file's, a request's): its JSON is its internals (a file's path), not its
  // bytes. (Effect 4's classes have a `pipe` too, but are no event emitters.)
  if (
    typeof (body as { pipe?: unknown } | null)?.pipe === "function" &&
    typeof (body as { on?: unknown }).on === "function"
  ) {
    return invalidBody(`cannot be sent: ${describe(body)} is a stream; send its bytes`)
  }
  let text: string | undefined
  try {
    text = JSON.stringify(body)
  } catch (cause) {
    return invalidBody(`cannot be encoded as JSON: ${messageOf(cause)}`)
  }
  if (text === undefined) return invalidBody("cannot be encoded as JSON")
  // what holds its contents elsewhere than in its keys went as `{}`: a Map, a Set, a stream, a
  // Promise, and any built-in object (a Response, an Error, a RegExp, a WeakMap, a
  // SharedArrayBuffer…, of any realm). An empty DTO, a Schema.Class whose fields are all absent, or
  // another realm's `{}` says `{}` itself, and goes.
  if (
    text === "{}" &&
    (tagOf(body) !== "[object Object]" ||
      Symbol.iterator in (body as object) ||
      Symbol.asyncIterator in (body as object) ||
      typeof (body as { getReader?: unknown }).getReader === "function" ||
      typeof (body as { then?: unknown }).then === "function")
  ) {
    return invalidBody(`cannot be sent: ${describe(body)} has no JSON form`)
  }
  return { body: text, contentType: "application/json" }
}

const invalidBody = (reason: string): InvalidArgument => ({
  _tag: "InvalidArgument",
  argument: "body",
  reason
})

/**
 * FormData serialised by the platform's own `Response`, so that every transport sends the same
 * multipart body and boundary (Node's global FormData is not the undici package's).
 */
const multipart = async (form: FormData): Promise<WireBody> => {
  const encoded = new Response(form)
  // read before the body: Bun's Response fills in the boundary only until its body is read
  const contentType = encoded.headers.get("content-type") ?? "multipart/form-data"
  return { body: new Uint8Array(await encoded.arrayBuffer()), contentType }
}

/** A body that cannot be read (a Blob that rejects, bytes of a detached buffer): an invalid body. */
const unreadable = (cause: unknown): InvalidArgument =>
  invalidBody(`could not be read: ${messageOf(cause)}`)

/** A body read first (a Blob's, a form's files). */
const readFirst = (read: Promise<WireBody>): Promise<WireBody | InvalidArgument> =>
  read.catch(unreadable)

type Encoded = WireBody | Promise<WireBody | InvalidArgument> | InvalidArgument

/**
 * The wire body for a request body given by the caller: at once, or, for `FormData` and a `Blob`,
 * once read; a body that cannot be sent is an invalid argument.
 */
export const encodeBody = (body: unknown): Encoded => {
  try {
    return encodeNow(body)
  } catch (cause) {
    return unreadable(cause)
  }
}

const encodeNow = (body: unknown): Encoded => {
  if (body === undefined) return none
  if (typeof body === "string") return { body, contentType: "text/plain;charset=UTF-8" }
  if (body instanceof URLSearchParams) {
    return {
      body: body.toString(),
      contentType: "application/x-www-form-urlencoded;charset=UTF-8"
    }
  }
  if (isFormData(body)) return readFirst(multipart(body))
  // another realm's (a worker's, a vm context's) too
  if (tagOf(body) === "[object ArrayBuffer]") {
    return { body: new Uint8Array(body as ArrayBuffer), contentType: "application/octet-stream" }
  }
  if (ArrayBuffer.isView(body)) {
    return {
      body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
      contentType: "application/octet-stream"
    }
  }
  if (isBlob(body)) {
    return readFirst(
      body.arrayBuffer().then(
        (buffer): WireBody => ({
          body: new Uint8Array(buffer),
          // a Blob without a type gets no Content-Type, as with fetch
          contentType: body.type || undefined
        })
      )
    )
  }
  return toJson(body)
}
