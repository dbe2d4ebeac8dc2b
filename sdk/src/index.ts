/** The Court Records Research API's TypeScript SDK. */
export { createCourtRecordsClient } from './client.ts';
export type {
  ApiResult,
  CourtRecordsClient,
  CourtRecordsOptions,
  OperationBody,
  OperationId,
  OperationInit,
  OperationQuery,
  OperationRequestBody,
  RequestOptions,
  ResponseInfo,
  WithResponse,
} from './client.ts';
export {
  AuthenticationError,
  CourtRecordsConnectionError,
  CourtRecordsError,
  IdempotencyError,
  InsufficientCreditsError,
  InternalServerError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  UpstreamError,
} from './errors.ts';
export type { ConnectionFailure, ErrorBody, ErrorCode } from './errors.ts';
export { decryptPdfLink, InvalidPdfLinkError } from './pdf-link.ts';
export type { EncryptedPdfLink } from './pdf-link.ts';
export type { AutoPaginated, AutoPaginateOptions } from './pagination.ts';
export type { Resources } from './resources.ts';
export { DEFAULT_RETRY_POLICY } from './retry.ts';
export type { RetryEnvironment, RetryPolicy } from './retry.ts';
export { DEFAULT_TIMEOUT_MS, OPERATION_TIMEOUTS_MS } from './timeouts.ts';
export { SDK_VERSION } from './version.ts';
export { AnalysisFailedError, TimelineFailedError, WaitTimeoutError } from './wait.ts';
export type { WaitOptions } from './wait.ts';
export type { components, operations, paths } from './generated/schema.ts';
export { API_VERSION, OPERATIONS } from './generated/operations.ts';
export { signWebhook, verifyWebhook, WebhookVerificationError } from './webhooks.ts';
export type {
  AnalysisEventData,
  AnalysisFailedEvent,
  AnalysisStoredEvent,
  CourtRecordsWebhookEvent,
  TimelineCompletedEvent,
  TimelineEventData,
  TimelineFailedEvent,
  VerifyWebhookInput,
  WebhookEvent,
  WebhookEventType,
  WebhookHeaders,
  WebhookVerificationReason,
} from './webhooks.ts';
