/**
 * The refusal of an address that has used up its failed attempts at a secret (API keys, the
 * admin token): RATE_LIMITED in the rate-limit layer's bare shape, with Retry-After, the
 * spec's code for a per-IP ceiling. It names no key and no token, and is the same whether the
 * refused attempt was right or wrong.
 */
import type { Blocked } from '../application/access/failed-attempt-throttle.ts';
import { ApiError } from './api-error.ts';

export function tooManyFailedAttempts(blocked: Blocked, secret: string): ApiError {
  const seconds = String(blocked.retryAfterSeconds);
  return new ApiError('RATE_LIMITED', {
    shape: 'rate-limit',
    message: `Too many failed ${secret} attempts from this address (at most ${blocked.maxFailures} per window); retry after ${seconds} seconds.`,
    headers: { 'Retry-After': seconds },
    extra: { retryAfter: blocked.retryAfterSeconds, resetTime: blocked.until.toISOString() },
  });
}
