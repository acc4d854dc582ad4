/**
 * Bundles the program `source` (an absolute path) into `out` (a `.mjs` file under this repository,
 * where Node finds its node_modules).
 */
export declare const bundleProgram: (source: string, out: string) => Promise<void>
/** Bundles the demo's `entry` (a path under examples/) into .cache/demo/; answers the bundle's path. */
export declare const bundleDemo: (entry: string) => Promise<string>
