/** The Node versions besides the running one that `npm test` runs the suite on. */
export declare const OTHER_VERSIONS: ReadonlyArray<string>
/** The version of ky 2 the benchmark measures on Node ≥ 22. */
export declare const KY2_VERSION: string
/** Whether the registry has Node builds for this machine (Linux x64). */
export declare const supported: boolean
/** The path of the `node` binary of `version`, fetched into `.cache/node` when missing. */
export declare const nodeBinary: (version: string) => string
/** The path of ky 2's entry module, fetched into `.cache/ky` when missing. */
export declare const ky2Module: () => string
/**
 * Unpacks `paths` of the registry package `name@version` into `dir` (a `package/` folder), saying
 * what is fetched (`what`), with `npm pack` and `tar`.
 */
export declare const unpack: (
  name: string,
  version: string,
  dir: string,
  paths: ReadonlyArray<string>,
  what: string
) => void
