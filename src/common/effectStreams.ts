/**
 * The Effect API's `Stream`s of `stream` and `sse`, for both lines: a web stream the request
 * program answers, read as a `Stream` when it runs (used by `effectApi.ts` alone).
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ApiSuccess } from "../core/ApiResponse.js"
import { messageOf } from "../core/describe.js"
import type { StreamedBody } from "../core/transport.js"
import type { StreamDialect } from "./dialect.js"
import { isSvcError, NetworkError, type SvcError } from "./SvcError.js"

/** A failure of a body's stream as the Effect API's error (the body errors with nothing else). */
const streamFailure = (error: unknown): SvcError =>
  isSvcError(error)
    ? error
    : new NetworkError({ reason: `the stream failed (${messageOf(error)})`, cause: error })

/**
 * A `Stream` of what `open` answers, read by `read` when the `Stream` runs.
 *
 * The body can be closed from the moment the exchange answers it: `open` keeps how in the
 * `StreamedBody` it is given, and the `Stream` closes it when it ends, however it ends. Its reader
 * has usually cancelled it by then; not when the `Stream` was interrupted at a step between the
 * answer and the reader's own finalizer (when its fiber yielded there).
 */
const fromAnswer = <A, B>(
  open: (streamed: StreamedBody) => Effect.Effect<ApiSuccess<A>, SvcError>,
  read: (data: A) => Stream.Stream<B, SvcError>
): Stream.Stream<B, SvcError> =>
  Stream.suspend(() => {
    const streamed: StreamedBody = { close: undefined }
    return Stream.ensuring(
      Stream.unwrap(Effect.map(open(streamed), (response) => read(response.data))),
      Effect.sync(() => streamed.close?.())
    )
  })

/** A `Stream` of the bytes of the web stream `open` answers. */
export const fromWebStream = (
  open: (streamed: StreamedBody) => Effect.Effect<ApiSuccess<ReadableStream<Uint8Array>>, SvcError>
): Stream.Stream<Uint8Array, SvcError> =>
  fromAnswer(open, (body) =>
    Stream.fromReadableStream({ evaluate: () => body, onError: streamFailure })
  )

/**
 * A `Stream` of the elements of the web stream of batches `open` answers (`sse`'s events, through
 * `data`'s `events`): a batch read at once, its elements handed on together.
 */
export const fromWebBatches = <A, B>(
  open: (streamed: StreamedBody) => Effect.Effect<ApiSuccess<A>, SvcError>,
  batches: (data: A) => ReadableStream<ReadonlyArray<B>>,
  fromBatches: StreamDialect["fromBatches"]
): Stream.Stream<B, SvcError> =>
  fromAnswer(open, (data) => fromBatches(() => batches(data), streamFailure))
