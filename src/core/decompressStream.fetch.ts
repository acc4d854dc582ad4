/**
 * Streamed bodies decoded with the platform's `DecompressionStream` (browsers, workers, Deno,
 * Bun): what the `HttpClient` adapter needs where fetch is the transport. A module of its own, so
 * that a facade that never streams through an adapter does not bundle it.
 */
import { codingsOf } from "./decompress.js"
import { supports } from "./supports.js"

/**
 * A body stream with its `content-encoding` undone as it arrives, with the platform's
 * `DecompressionStream`: gzip and deflate (wrapped), and br where the platform has it.
 */
export const decompressStream = (
  body: ReadableStream<Uint8Array>,
  encoding: string | undefined
): ReadableStream<Uint8Array> => {
  if (encoding === undefined) return body
  let out = body
  for (const coding of codingsOf(encoding)) {
    const format =
      coding === "gzip" || coding === "x-gzip"
        ? "gzip"
        : coding === "deflate"
          ? "deflate"
          : coding === "br" && supports("brotli")
            ? "brotli"
            : undefined
    if (format === undefined) return out
    out = out.pipeThrough(
      new DecompressionStream(format as CompressionFormat) as unknown as ReadableWritablePair<
        Uint8Array,
        Uint8Array
      >
    )
  }
  return out
}
