/**
 * The ways a request can fail, as tagged errors: written once for both Effect lines (`Data`'s
 * tagged errors are the same on both), in `src/common/SvcError.ts`.
 *
 * @since 0.1.0
 */
export * from "../../common/SvcError.js"
