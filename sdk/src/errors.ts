/**
 * Every refusal the API documents arrives as a `CourtRecordsError` whose `code` is one of
 * the API's error codes (typed from the OpenAPI document): branch on `code`, never on the
 * message. `error.is(code)` narrows the body to that code's shape (the 402 body carries
 * the shortfall and the top-up link; a rate limit carries `retryAfter`).
 */
import type { components } from './generated/schema.ts';

type Schemas = components['schemas'];
export type ErrorCode = Schemas['CodedError']['code'];

/** The body of each code: the documented extra fields of 402 and 429, the common shape otherwise. */
export type ErrorBody<C extends ErrorCode = ErrorCode> = C extends 'INSUFFICIENT_API_CREDITS'
  ? Schemas['InsufficientCredits']
  : C extends 'RATE_LIMITED'
    ? Schemas['RateLimitError'] & Partial<Schemas['CodedError']>
    : Schemas['CodedError'];

export class CourtRecordsError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'CourtRecordsError';

  constructor(
    readonly status: number,
    readonly code: C,
    readonly body: ErrorBody<C>,
    /** The X-Request-Id of the failed call: quote it to support. */
    readonly requestId: string | undefined,
    /** Seconds the server asked the client to wait (Retry-After), when it did. */
    readonly retryAfter: number | undefined,
  ) {
    super(`${code}: ${body.message}`);
  }

  is<K extends ErrorCode>(code: K): this is CourtRecordsError<K> {
    const actual: ErrorCode = this.code;
    return actual === code;
  }
}

/** The service could not be reached, or answered with something that is not the API's error shape. */
export class CourtRecordsConnectionError extends Error {
  override readonly name = 'CourtRecordsConnectionError';

  constructor(
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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

/** The error for a non-2xx answer: typed when the body is the API's, a connection error otherwise. */
export function errorFromResponse(response: Response, body: unknown): CourtRecordsError | CourtRecordsConnectionError {
  if (!isCoded(body)) return new CourtRecordsConnectionError(`HTTP ${response.status} without an API error body`, response.status);
  return new CourtRecordsError(
    response.status,
    body.code,
    body as ErrorBody,
    response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds(response.headers.get('retry-after'), Date.now()),
  );
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
