/**
 * HTTP names both halves and both Effect lines share.
 */

/**
 * An HTTP method the client sends.
 *
 * @since 0.1.0
 * @category models
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS"

/** The header that carries the session id, on the client and on the server, unless configured. */
export const DEFAULT_SESSION_HEADER = "X-Session-Id"
