/**
 * Validation with a Standard Schema validator (zod, valibot, …), for both lines and no Effect in
 * it: loaded by the first request that passes one, so that a bundle that never does leaves it out.
 */
import type { StandardSchemaV1 } from "./standardSchema.js"

/** What a validator made of some data: its output, or what it said (or threw) against it. */
export type Validation =
  | { readonly value: unknown }
  | { readonly problem: string; readonly cause: unknown }

const describeIssue = (issue: {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
}): string => {
  const path = (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part))
  return path.length === 0 ? issue.message : `${path.join(".")}: ${issue.message}`
}

/** How a thrown value reads (`messageOf` of core/describe.ts, which the caller passes). */
type MessageOf = (cause: unknown) => string

const settle = (
  result: StandardSchemaV1.Result<unknown>,
  threw: (cause: unknown) => Validation
): Validation => {
  if (typeof result !== "object" || result === null) {
    return { problem: "the schema's validate answered no result", cause: result }
  }
  if (result.issues === undefined) return { value: result.value }
  // issues of a shape no validator should answer are described as what they throw
  try {
    return { problem: result.issues.map(describeIssue).join("; "), cause: result.issues }
  } catch (cause) {
    return threw(cause)
  }
}

/**
 * `data` validated by `schema`. Most validators answer at once: only a promised answer (any
 * thenable, not only a Promise of this realm's) gives a promise, which never rejects.
 */
export const validateStandard = (
  schema: StandardSchemaV1,
  data: unknown,
  messageOf: MessageOf
): Validation | Promise<Validation> => {
  const threw = (cause: unknown): Validation => ({ problem: messageOf(cause), cause })
  let result: ReturnType<StandardSchemaV1["~standard"]["validate"]>
  let promised: boolean
  try {
    result = schema["~standard"].validate(data)
    // (inside the try: a `then` getter may throw too)
    promised = typeof (result as Partial<PromiseLike<unknown>> | null)?.then === "function"
  } catch (cause) {
    return threw(cause)
  }
  return promised
    ? Promise.resolve(result).then((answer) => settle(answer, threw), threw)
    : settle(result as StandardSchemaV1.Result<unknown>, threw)
}
