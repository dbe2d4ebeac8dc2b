/** The Court Records Research API's TypeScript SDK. */
export { createCourtRecordsClient } from './client.ts';
export type { ApiResult, CourtRecordsClient, CourtRecordsOptions, OperationBody, OperationId, OperationInit } from './client.ts';
export { CourtRecordsConnectionError, CourtRecordsError } from './errors.ts';
export type { ErrorBody, ErrorCode } from './errors.ts';
export { decryptPdfLink, InvalidPdfLinkError } from './pdf-link.ts';
export type { EncryptedPdfLink } from './pdf-link.ts';
export { DEFAULT_RETRY_POLICY } from './retry.ts';
export type { RetryEnvironment, RetryPolicy } from './retry.ts';
export type { components, operations, paths } from './generated/schema.ts';
export { API_VERSION, OPERATIONS } from './generated/operations.ts';
export { signWebhook, verifyWebhook, WebhookVerificationError } from './webhooks.ts';
export type { VerifyWebhookInput, WebhookEvent, WebhookEventType, WebhookHeaders, WebhookVerificationReason } from './webhooks.ts';
