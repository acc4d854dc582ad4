/** Whether the platform's `DecompressionStream` knows a format, for both decoders of fetch's runtimes. */

/** Whether this runtime's `DecompressionStream` knows `format` (brotli is not everywhere). */
export const supports = (format: string): boolean => {
  try {
    new DecompressionStream(format as CompressionFormat)
    return true
  } catch {
    return false
  }
}
