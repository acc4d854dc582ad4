/** Effect 4's Node floor. */
export declare const EFFECT4_MIN_NODE: string
/** Whether Node `version` ("24.21.0", "v20.19.5") can run Effect 4. */
export declare const allowsEffect4: (version: string) => boolean
/** A Node build on disk. */
export interface NodeBuild {
  readonly version: string
  readonly path: string
}
/** Which line `npm run demo` runs on, on which Node, and the end of its announcement. */
export declare const chooseLine: (options: {
  readonly requested: string | undefined
  readonly running: string
  readonly cached: ReadonlyArray<NodeBuild>
}) => {
  readonly line: 3 | 4
  readonly node: NodeBuild | "running" | "fetch"
  readonly why: string
}
