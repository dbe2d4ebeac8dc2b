/**
 * Every refusal the API documents arrives as a `CourtRecordsError` whose `code` is one of
 * the API's error codes (typed from the OpenAPI document): branch on `code`, never on the
 * message. `error.is(code)` narrows the body to that code's shape (the 402 body carries
 * the shortfall and the top-up link; a rate limit carries `retryAfter`). Each error is also
 * an instance of the class of its code's status in the server's error table
 * (`RateLimitError`, `InsufficientCreditsError`, …), so `instanceof` sorts them the way
 * stripe-node's error classes do; a refusal answered in band under HTTP 200
 * (`success: false`) gets the class of its code, not of the 200.
 */
import { ERROR_STATUS } from './generated/error-status.ts';
import type { components } from './generated/schema.ts';

type Schemas = components['schemas'];
export type ErrorCode = Schemas['CodedError']['code'];

/** The body of each code: the documented extra fields of 402 and 429, the common shape otherwise. */
export type ErrorBody<C extends ErrorCode = ErrorCode> = C extends 'INSUFFICIENT_API_CREDITS'
  ? Schemas['InsufficientCredits']
  : C extends 'RATE_LIMITED'
    ? Schemas['RateLimitError'] & Partial<Schemas['CodedError']>
    : Schemas['CodedError'];

/** What every SDK error carries beside its message. */
export interface ErrorContext {
  /** The X-Request-Id of the failed call: quote it to support. */
  readonly requestId?: string | undefined;
  /** Seconds the server asked the client to wait (Retry-After), when it did. */
  readonly retryAfter?: number | undefined;
  /** The Idempotency-Key the call was sent with (every attempt used it): retry with it to be charged at most once. */
  readonly idempotencyKey?: string | undefined;
}

export class CourtRecordsError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name: string = 'CourtRecordsError';
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly idempotencyKey: string | undefined;

  constructor(
    /** The HTTP status of the answer (200 for a refusal answered in band). */
    readonly status: number,
    readonly code: C,
    readonly body: ErrorBody<C>,
    context: ErrorContext = {},
  ) {
    super(`${code}: ${body.message}`);
    this.requestId = context.requestId;
    this.retryAfter = context.retryAfter;
    this.idempotencyKey = context.idempotencyKey;
  }

  is<K extends ErrorCode>(code: K): this is CourtRecordsError<K> {
    const actual: ErrorCode = this.code;
    return actual === code;
  }
}

/** 400, 405 and 413: the request itself is wrong (validation, page limits, a cursor of another query). */
export class InvalidRequestError extends CourtRecordsError {
  override readonly name: string = 'InvalidRequestError';
}
/** 401: no key, or a key that is malformed, unknown, revoked or expired. */
export class AuthenticationError extends CourtRecordsError {
  override readonly name: string = 'AuthenticationError';
}
/** 402 INSUFFICIENT_API_CREDITS: nothing was charged; `body.shortfall` and `body.topUpUrl` say what to buy. */
export class InsufficientCreditsError extends CourtRecordsError<'INSUFFICIENT_API_CREDITS'> {
  override readonly name: string = 'InsufficientCreditsError';
}
/** 403: the key works but may not do this (tier, standing, address, restriction). */
export class PermissionError extends CourtRecordsError {
  override readonly name: string = 'PermissionError';
}
/** 404 and 410: no such case, job, document or route. */
export class NotFoundError extends CourtRecordsError {
  override readonly name: string = 'NotFoundError';
}
/** 409: an Idempotency-Key reused with another body, or still in use by a running call. */
export class IdempotencyError extends CourtRecordsError {
  override readonly name: string = 'IdempotencyError';
}
/** 429: a per-minute rate or a daily or monthly cap; `retryAfter` says when. */
export class RateLimitError extends CourtRecordsError {
  override readonly name: string = 'RateLimitError';
}
/** 408, 502, 503: a dependency (index, portal, workflow engine) timed out or was down; nothing was charged. */
export class UpstreamError extends CourtRecordsError {
  override readonly name: string = 'UpstreamError';
}
/** 500: the service failed; quote `requestId`. */
export class InternalServerError extends CourtRecordsError {
  override readonly name: string = 'InternalServerError';
}

type ErrorClass = new (status: number, code: ErrorCode, body: ErrorBody, context: ErrorContext) => CourtRecordsError;

const CLASS_OF_STATUS: Readonly<Record<number, ErrorClass>> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  402: InsufficientCreditsError as unknown as ErrorClass,
  403: PermissionError,
  404: NotFoundError,
  405: InvalidRequestError,
  408: UpstreamError,
  409: IdempotencyError,
  410: NotFoundError,
  413: InvalidRequestError,
  429: RateLimitError,
  500: InternalServerError,
  502: UpstreamError,
  503: UpstreamError,
  504: UpstreamError,
};

export type ConnectionFailure = 'network' | 'timeout' | 'aborted' | 'unreadable' | 'redirect';

/** The service could not be reached, timed out, was aborted by the caller, or answered with something that is not the API's. */
export class CourtRecordsConnectionError extends Error {
  override readonly name = 'CourtRecordsConnectionError';
  readonly idempotencyKey: string | undefined;
  readonly requestId: string | undefined;
  /** Why: `aborted` only when the caller's signal fired; `timeout` when the last attempt ran out of time. */
  readonly reason: ConnectionFailure;

  constructor(
    message: string,
    readonly status?: number,
    options: { cause?: unknown; reason?: ConnectionFailure } & ErrorContext = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = options.reason ?? 'network';
    this.idempotencyKey = options.idempotencyKey;
    this.requestId = options.requestId;
  }
}

function isCoded(body: unknown): body is { code: ErrorCode; message: string } {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as { code?: unknown }).code === 'string' &&
    typeof (body as { message?: unknown }).message === 'string'
  );
}

/** The typed error of a coded body: its class follows the code's status in the server's table, else the answer's. */
export function codedError(status: number, body: { code: ErrorCode; message: string }, context: ErrorContext): CourtRecordsError {
  const ErrorOfCode = CLASS_OF_STATUS[ERROR_STATUS[body.code] ?? status] ?? CourtRecordsError;
  return new ErrorOfCode(status, body.code, body as ErrorBody, context);
}

/** The error for a non-2xx answer: typed when the body is the API's, a connection error otherwise. */
export function errorFromResponse(
  response: Response,
  body: unknown,
  idempotencyKey?: string,
): CourtRecordsError | CourtRecordsConnectionError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (!isCoded(body))
    return new CourtRecordsConnectionError(`HTTP ${response.status} without an API error body`, response.status, {
      reason: 'unreadable',
      requestId,
      idempotencyKey,
    });
  return codedError(response.status, body, {
    requestId,
    retryAfter: retryAfterSeconds(response.headers.get('retry-after'), Date.now()),
    idempotencyKey,
  });
}

/** An HTTP 200 whose body is `success: false` with a code: a refusal answered in band (the spec's semantic-search quirk). */
export function inBandRefusal(body: unknown): body is { success: false; code: ErrorCode; message: string } {
  return isCoded(body) && (body as { success?: unknown }).success === false;
}

/** Retry-After as seconds: either delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(header: string | null, nowMs: number): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  // Only the IMF-fixdate form servers send: Date.parse alone reads '-5' as a year.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - nowMs) / 1000));
}
