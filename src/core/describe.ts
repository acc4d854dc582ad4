/**
 * How a value the caller gave is named in an error message.
 */

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
      return typeof kind === "string" && kind !== "Object" ? `a ${kind}` : "an object"
    }
    default:
      return `a ${typeof value}`
  }
}
