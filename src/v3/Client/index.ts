/**
 * The client: `SvcClient` (Effect service and Promise facade), `createSvc`, errors and types.
 *
 * @since 0.1.0
 * @module svc-sdk/v3/Client
 */

// first: with effect 4 installed, the error says to import svc-sdk (see internal/effect3.ts)
import "../internal/effect3.js"

export type {
  ApiFailure,
  ApiResponse,
  ApiSuccess,
  ErrorCode,
  ResponseMeta
} from "../../core/ApiResponse.js"
export {
  createSvc,
  type EventStream,
  type FetchFunction,
  type HttpMethod,
  type Progress,
  type ProgressCallback,
  type Reconnect,
  type RedirectMode,
  type RefreshSession,
  type RequestConfig,
  type RequestInterceptor,
  type RequestOptions,
  type RequestParams,
  type RequestResultKind,
  type ResponseInterceptor,
  type ResponseType,
  type SchemaDecodingTo,
  type SseEvent,
  type SseOptions,
  type SseResult,
  type StandardSchemaV1,
  type StreamOptions,
  type StreamResult,
  SvcClient,
  type SvcClientFacade,
  type SvcClientService,
  type SvcConfig
} from "./SvcClient.js"
// every error of the union `SvcError`, and the union
export * from "./SvcError.js"
