/**
 * @since 0.1.0
 */
export { SessionStoreError } from "../common/SessionStoreError.js"
