/** The Node versions besides the running one that `npm test` runs the suite on. */
export declare const OTHER_VERSIONS: ReadonlyArray<string>
/** Whether the registry has Node builds for this machine (Linux x64). */
export declare const supported: boolean
/** The path of the `node` binary of `version`, fetched into `.cache/node` when missing. */
export declare const nodeBinary: (version: string) => string
