/**
 * Undoing `Content-Encoding`, the same for every runtime: the codings are read and undone here,
 * each runtime brings its decoders (zlib on Node, `DecompressionStream` elsewhere).
 */

/** The codings of a `Content-Encoding` value, lower-case, the last applied first (`identity` left out). */
export const codingsOf = (encoding: string): Array<string> =>
  encoding
    .toLowerCase()
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding !== "" && coding !== "identity")
    .reverse()

/** Undoes one coding, stopping past `limit` bytes of output. */
export type Decoder = (bytes: Uint8Array, limit: number) => Promise<Uint8Array | "TooLarge">

/**
 * Undoes `encoding` (codings last applied first) with `decoders`, stopping past `limit` bytes; a
 * coding without a decoder leaves the bytes as they are from there on.
 */
export const decompressWith =
  (decoders: Readonly<Record<string, Decoder>>) =>
  async (
    bytes: Uint8Array,
    encoding: string | undefined,
    limit: number
  ): Promise<Uint8Array | "TooLarge"> => {
    if (encoding === undefined || bytes.byteLength === 0) return bytes
    let out = bytes
    for (const coding of codingsOf(encoding)) {
      const decode = Object.hasOwn(decoders, coding) ? decoders[coding] : undefined
      if (decode === undefined) return out
      const decoded = await decode(out, limit)
      if (decoded === "TooLarge") return decoded
      out = decoded
    }
    return out.byteLength > limit ? "TooLarge" : out
  }

/**
 * Whether deflate bytes are zlib-wrapped (RFC 1950) rather than raw: servers send both. The header's
 * two bytes say so (deflate, a window of at most 32 KiB, and a check of 31), which text seldom
 * does ("hello" starts with a deflate method and window, not the check); a first chunk of one
 * byte is judged on that byte.
 */
export const isZlibWrapped = (bytes: Uint8Array): boolean => {
  const method = bytes[0]
  if (method === undefined || (method & 0x0f) !== 0x08 || method >> 4 > 7) return false
  const flags = bytes[1]
  return flags === undefined || ((method << 8) | flags) % 31 === 0
}
