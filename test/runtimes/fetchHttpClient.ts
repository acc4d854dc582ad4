/**
 * `FetchHttpClient.layer` of the Effect 3 line, for the client bundled into the runtimes; the
 * Effect 4 bundle takes test/v4/runtimes/fetchHttpClient.ts instead.
 */
export { layer } from "@effect/platform/FetchHttpClient"
