/** The runtimes besides Node that `npm test` runs the client in. */
export type Runtime = "bun" | "deno" | "workerd"
/** Each runtime's registry package, version and binary inside it. */
export declare const RUNTIMES: {
  readonly [R in Runtime]: {
    readonly name: string
    readonly version: string
    readonly path: string
    readonly size: string
  }
}
/** The path of `runtime`'s binary, fetched into `.cache/<runtime>` when missing. */
export declare const runtimeBinary: (runtime: Runtime) => string
