/**
 * The Standard Schema v1 interface, as far as the client uses it.
 */

/**
 * A Standard Schema v1 validator (https://standardschema.dev): what zod, valibot and arktype
 * schemas are. Only `~standard.validate` is used.
 *
 * @since 0.1.0
 * @category models
 */
export interface StandardSchemaV1<Output = unknown> {
  readonly "~standard": {
    readonly version: 1
    readonly vendor: string
    readonly validate: (
      value: unknown
    ) => StandardSchemaV1.Result<Output> | Promise<StandardSchemaV1.Result<Output>>
  }
}

/**
 * @since 0.1.0
 */
export declare namespace StandardSchemaV1 {
  /** @since 0.1.0 */
  export type Result<Output> =
    | { readonly value: Output; readonly issues?: undefined }
    | {
        readonly issues: ReadonlyArray<{
          readonly message: string
          readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined
        }>
      }
}

/** Whether `value` is a Standard Schema v1 validator (zod, valibot, arktype…). */
export const isStandardSchema = (value: unknown): value is StandardSchemaV1 =>
  (typeof value === "object" || typeof value === "function") &&
  value !== null &&
  typeof (value as Partial<StandardSchemaV1>)["~standard"]?.validate === "function"
