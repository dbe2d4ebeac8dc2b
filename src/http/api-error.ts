/**
 * The one error class handlers throw. It carries a code from the error table, an optional
 * message, extra body fields the spec names for some codes (required/balance/shortfall on
 * 402, callsToday/maxAllowed on entitlement refusals, hint on PDF_NOT_STORED) and headers.
 */
import { ERROR_MESSAGE, ERROR_STATUS, type ErrorCode, type ErrorStatus } from './error-codes.ts';

export type ErrorShape = 'coded' | 'rate-limit' | 'bare';

export interface ApiErrorOptions {
  readonly message?: string;
  readonly details?: readonly string[];
  readonly extra?: Readonly<Record<string, unknown>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly shape?: ErrorShape;
  /** What went wrong underneath, for the log only; never rendered. */
  readonly cause?: unknown;
  /**
   * The coded body under HTTP 200: the spec's semantic-search quirk for work that failed
   * after it started (that route's OpenAPI description gives the rule). Marked no-store,
   * so neither a cache nor an idempotent replay keeps it.
   */
  readonly inBand?: boolean;
}

export class ApiError extends Error {
  readonly status: ErrorStatus;

  constructor(
    readonly code: ErrorCode,
    readonly options: ApiErrorOptions = {},
  ) {
    super(options.message ?? ERROR_MESSAGE[code]);
    this.status = ERROR_STATUS[code];
  }
}

/** Long enough for a supervised engine to come back (it is restarted within seconds). */
const ENGINE_RETRY_AFTER_SECONDS = 30;

/** The answer when the workflow engine cannot take `what` (an analysis run, a live fetch): 503, Retry-After, nothing charged. */
export function workflowEngineUnavailable(what: string): ApiError {
  return new ApiError('WORKFLOW_ENGINE_UNAVAILABLE', {
    message: `The workflow engine could not take this ${what}; nothing was charged. Retry after ${String(ENGINE_RETRY_AFTER_SECONDS)} seconds.`,
    headers: { 'Retry-After': String(ENGINE_RETRY_AFTER_SECONDS) },
  });
}
