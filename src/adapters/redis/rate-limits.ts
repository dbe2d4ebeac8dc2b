/**
 * Redis-backed rate limiter and distinct counter, shared by every instance. Windows are
 * aligned to the clock, so all instances agree on the reset time; the counter and its
 * expiry are set in one MULTI so a crash cannot leave a counter that never expires.
 */
import type { Clock } from '../../ports/clock.ts';
import type { DistinctCounter } from '../../ports/distinct-counter.ts';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.ts';
import type { RedisClient } from './cache.ts';

export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly client: RedisClient,
    private readonly clock: Clock,
    private readonly prefix = 'court-records:rl:',
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % windowMs);
    const resetAt = windowStart + windowMs;
    const redisKey = `${this.prefix}${key}:${windowStart}`;
    const [count] = await this.client
      .multi()
      .incr(redisKey)
      .pExpireAt(redisKey, resetAt + 1000)
      .exec();
    const used = Number(count);
    return { allowed: used <= limit, limit, remaining: Math.max(0, limit - used), resetAt: new Date(resetAt) };
  }
}

export class RedisDistinctCounter implements DistinctCounter {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix = 'court-records:dc:',
  ) {}

  async add(set: string, member: string, ttlSeconds: number): Promise<{ size: number; isNew: boolean }> {
    const key = this.prefix + set;
    const [added, size] = await this.client.multi().sAdd(key, member).sCard(key).expire(key, ttlSeconds, 'NX').exec();
    return { size: Number(size), isNew: Number(added) === 1 };
  }

  async remove(set: string, member: string): Promise<void> {
    await this.client.sRem(this.prefix + set, member);
  }
}
