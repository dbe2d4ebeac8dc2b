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
