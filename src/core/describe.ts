/**
 * What a value the caller gave is, and how it is named in an error message.
 */

/**
 * An object of names and values: not an iterable (an array, a `Map`, `URLSearchParams`, `Headers`
 * or `FormData` holds its entries elsewhere than in its keys, which would read as none).
 */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !(Symbol.iterator in value)

/** How a value is named in a message: its type, or the value itself when short and harmless. */
export const describe = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  switch (typeof value) {
    case "string":
      return JSON.stringify(value)
    case "number":
    case "boolean":
    case "undefined":
      return String(value)
    case "bigint":
      return `${value}n`
    case "object": {
      // an object by its class ("a Map", "a URLSearchParams"), read off its prototype (an own
      // `constructor`, as JSON may hold, is the caller's text); a plain one is "an object"
      const kind: unknown = Object.getPrototypeOf(value)?.constructor?.name
      return typeof kind === "string" && kind !== "" && kind !== "Object"
        ? `${/^[AEIO]/.test(kind) ? "an" : "a"} ${kind}`
        : "an object"
    }
    default:
      return `a ${typeof value}`
  }
}

/**
 * What a thrown value says: an `Error`'s message (its name when it has none), anything else as
 * text — or, for an object with no text (`Object.create(null)`, a `toString` that throws, a
 * revoked Proxy), "an object".
 */
export const messageOf = (cause: unknown): string => {
  try {
    return cause instanceof Error ? cause.message || cause.name : String(cause)
  } catch {
    // not `describe`, which reads the prototype: a revoked Proxy throws at that too
    return "an object"
  }
}

/**
 * A thrown value as an `Error`: itself when it is one whose message can be read, else an `Error`
 * saying what it says ({@link messageOf}). Never throws, whatever the value (a Proxy that throws
 * itself at every trap included).
 */
export const errorOf = (cause: unknown): Error => {
  try {
    if (cause instanceof Error && typeof cause.message === "string") return cause
  } catch {
    // read below, as text
  }
  return new Error(messageOf(cause))
}
