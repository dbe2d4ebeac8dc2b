/**
 * Per-IP limits of the routes without an API key (the reference data, document links,
 * the deep health check, dashboard and ops logins): not an account limit. A refusal uses the rate-limit layer's
 * bare shape with Retry-After; every answer carries the remaining allowance in RateLimit-*
 * headers, except when the store cannot answer. Then each bucket does what its purpose
 * asks (see BUCKETS): serve without headers, or refuse.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Clock } from '../../ports/clock.ts';
import type { RateLimiter } from '../../ports/rate-limiter.ts';
import { ApiError } from '../api-error.ts';
import type { AppEnv } from '../env.ts';

export interface PublicRateLimit {
  readonly limiter: RateLimiter;
  readonly perMinute: number;
  readonly clock: Clock;
  readonly clientAddress: (c: Context<AppEnv>) => string;
  /** The store did not answer (the request was then served or refused as its bucket says). */
  readonly onStoreFailure: (error: unknown) => void;
}

/** The separate allowances, and whether each serves (open) or refuses (closed) when the store is down. */
const BUCKETS = {
  /** Public reference data, cached by clients for an hour: the limit is a courtesy. */
  reference: 'open',
  /** Signed links that expire within the hour: the signature is the protection. */
  documents: 'open',
  /** The deep health check without the admin token: each call probes every backend, so it must not be free to repeat. */
  health: 'open',
  /** Password and admin-token logins: the limit is what slows guessing a secret. */
  login: 'closed',
} as const satisfies Record<string, 'open' | 'closed'>;

export type PublicBucket = keyof typeof BUCKETS;

const WINDOW_MS = 60_000;

export function publicRateLimit(deps: PublicRateLimit, bucket: PublicBucket): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let decision;
    try {
      decision = await deps.limiter.hit(`ip:${deps.clientAddress(c)}:${bucket}`, deps.perMinute, WINDOW_MS);
    } catch (error) {
      if (BUCKETS[bucket] === 'closed') {
        throw new ApiError('UPSTREAM_UNAVAILABLE', {
          message: 'The attempt limit could not be checked, so the attempt is refused without checking anything. Retry shortly.',
          cause: error,
        });
      }
      deps.onStoreFailure(error);
      return next();
    }
    const resetSeconds = Math.max(1, Math.ceil((decision.resetAt.getTime() - deps.clock.now().getTime()) / 1000));
    const headers = {
      'RateLimit-Limit': String(decision.limit),
      'RateLimit-Remaining': String(decision.remaining),
      'RateLimit-Reset': String(resetSeconds),
    };
    if (!decision.allowed) {
      throw new ApiError('RATE_LIMITED', {
        shape: 'rate-limit',
        message: `Too many requests: at most ${decision.limit} per minute from one address.`,
        headers: { ...headers, 'Retry-After': String(resetSeconds) },
        extra: { retryAfter: resetSeconds, resetTime: decision.resetAt.toISOString() },
      });
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
