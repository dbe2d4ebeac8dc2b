/**
 * Per-IP limits of the routes without an API key (the reference data, dashboard login):
 * not an account limit. A refusal
 * uses the rate-limit layer's bare shape with Retry-After; every answer carries the
 * remaining allowance in RateLimit-* headers.
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
}

const WINDOW_MS = 60_000;

/** `bucket` separates allowances: the reference routes share one, dashboard login has its own. */
export function publicRateLimit(deps: PublicRateLimit, bucket: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const decision = await deps.limiter.hit(`ip:${deps.clientAddress(c)}:${bucket}`, deps.perMinute, WINDOW_MS);
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
