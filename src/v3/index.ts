/**
 * svc-sdk: everything a Promise user needs — `createSvc`, `SvcClient`, the response and error
 * types, the query builder with its operators, and the storage adapter type.
 *
 * @since 0.1.0
 * @module svc-sdk/v3
 */

export * from "../Query/index.js"
export type { StorageAdapter } from "../Storage/StorageAdapter.js"
export type { HttpMethod } from "./Client/index.js"
export * from "./Client/index.js"
