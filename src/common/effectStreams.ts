/**
 * The Effect API's `Stream`s of `stream` and `sse`, for both lines: a web stream the request
 * program answers, read as a `Stream` when it runs (used by `effectApi.ts` alone).
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ApiSuccess } from "../core/ApiResponse.js"
import type { StreamDialect } from "./dialect.js"
import { isSvcError, NetworkError, type SvcError } from "./SvcError.js"

/** A failure of a body's stream as the Effect API's error (the body errors with nothing else). */
const streamFailure = (error: unknown): SvcError =>
  isSvcError(error)
    ? error
    : new NetworkError({ reason: `the stream failed (${String(error)})`, cause: error })

/**
 * A `Stream` of what `open` answers as a web stream, read when the `Stream` runs; a stream of
 * batches with {@link fromWebBatches}.
 */
export const fromWebStream = <A, B>(
  open: Effect.Effect<ApiSuccess<A>, SvcError>,
  readable: (data: A) => ReadableStream<B>
): Stream.Stream<B, SvcError> =>
  Stream.unwrap(
    Effect.map(open, (response) =>
      Stream.fromReadableStream({ evaluate: () => readable(response.data), onError: streamFailure })
    )
  )

/**
 * A `Stream` of the elements of what `open` answers as a web stream of batches (`sse`'s events):
 * a batch read at once, its elements handed on together.
 */
export const fromWebBatches = <A, B>(
  open: Effect.Effect<ApiSuccess<A>, SvcError>,
  readable: (data: A) => ReadableStream<ReadonlyArray<B>>,
  flattenIterables: StreamDialect["flattenIterables"]
): Stream.Stream<B, SvcError> => flattenIterables(fromWebStream(open, readable))
