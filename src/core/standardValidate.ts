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

const threw = (cause: unknown): Validation => ({
  problem: cause instanceof Error ? cause.message : String(cause),
  cause
})

const settle = (result: StandardSchemaV1.Result<unknown>): Validation =>
  typeof result !== "object" || result === null
    ? { problem: "the schema's validate answered no result", cause: result }
    : result.issues === undefined
      ? { value: result.value }
      : { problem: result.issues.map(describeIssue).join("; "), cause: result.issues }

/**
 * `data` validated by `schema`. Most validators answer at once: only a promised answer (any
 * thenable, not only a Promise of this realm's) gives a promise, which never rejects.
 */
export const validateStandard = (
  schema: StandardSchemaV1,
  data: unknown
): Validation | Promise<Validation> => {
  let result: ReturnType<StandardSchemaV1["~standard"]["validate"]>
  try {
    result = schema["~standard"].validate(data)
  } catch (cause) {
    return threw(cause)
  }
  return typeof (result as Partial<PromiseLike<unknown>> | null)?.then === "function"
    ? Promise.resolve(result).then(settle, threw)
    : settle(result as StandardSchemaV1.Result<unknown>)
}
