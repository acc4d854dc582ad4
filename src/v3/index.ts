/**
 * svc-sdk: everything a Promise user needs — `createSvc`, `SvcClient`, the response and error
 * types, the query builder with its operators, and the storage adapter type.
 *
 * @since 0.1.0
 * @module svc-sdk/v3
 */

// first: with effect 4 installed, the error says to import svc-sdk (see internal/effect3.ts)
import "./internal/effect3.js"

export * from "../Query/index.js"
export type { StorageAdapter } from "../Storage/StorageAdapter.js"
export type { HttpMethod } from "./Client/index.js"
export * from "./Client/index.js"
