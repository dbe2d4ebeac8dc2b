/**
 * Redis-backed rate limiter and distinct counter, shared by every instance. Each operation
 * is one Lua script, so it is atomic and one round trip, and carries the connection's
 * deadline (a call that timed out never counts later; see connection.ts).
 *
 * Time is Redis's own. The limiter's windows are aligned to Redis's clock (TIME inside the
 * script), so instances whose clocks disagree still share one window and one reset time;
 * every expiry is a duration Redis measures (PEXPIRE, EXPIRE), never an absolute instant
 * from the service's clock, so a service clock ahead of Redis's (or a test's fake clock)
 * cannot expire a key early or keep it forever.
 */
import type { Clock } from '../../ports/clock.ts';
import type { DistinctCounter } from '../../ports/distinct-counter.ts';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter.ts';
import type { RedisConnection } from './connection.ts';

/** A window's counter outlives the window by this much, so a late reader never finds it gone early. */
const EXPIRY_MARGIN_MS = 1_000;

/**
 * KEYS[1] a hash {start, count} of the key's current window; ARGV[2] the window in ms,
 * ARGV[3] the margin. A hash from an earlier window is restarted, not added to. Replies
 * the count including this hit and the ms left in the window.
 */
const HIT = `
local window = tonumber(ARGV[2])
local start = now - now % window
local count
if tonumber(redis.call('HGET', KEYS[1], 'start')) == start then
  count = redis.call('HINCRBY', KEYS[1], 'count', 1)
else
  redis.call('HSET', KEYS[1], 'start', start, 'count', 1)
  redis.call('PEXPIRE', KEYS[1], start + window - now + tonumber(ARGV[3]))
  count = 1
end
return {now, 1, count, start + window - now}
`;

/** KEYS[1] the set, ARGV[2] the member, ARGV[3] the set's time to live in seconds, set once. */
const ADD = `
local added = redis.call('SADD', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3], 'NX')
return {now, 1, added, redis.call('SCARD', KEYS[1])}
`;

const REMOVE = `
return {now, 1, redis.call('SREM', KEYS[1], ARGV[2])}
`;

export class RedisRateLimiter implements RateLimiter {
  /** `clock` only states the reset on the caller's clock (see RateLimitDecision); it never reaches Redis. */
  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: Clock,
    private readonly prefix = 'court-records:rl:',
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const [used, msLeft] = (await this.redis.count(HIT, [this.prefix + key], [windowMs, EXPIRY_MARGIN_MS], 2)) as [number, number];
    return {
      allowed: used <= limit,
      limit,
      remaining: Math.max(0, limit - used),
      resetAt: new Date(this.clock.now().getTime() + msLeft),
    };
  }
}

export class RedisDistinctCounter implements DistinctCounter {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix = 'court-records:dc:',
  ) {}

  async add(set: string, member: string, ttlSeconds: number): Promise<{ size: number; isNew: boolean }> {
    const [added, size] = (await this.redis.count(ADD, [this.prefix + set], [member, ttlSeconds], 2)) as [number, number];
    return { size, isNew: added === 1 };
  }

  async remove(set: string, member: string): Promise<void> {
    await this.redis.count(REMOVE, [this.prefix + set], [member], 1);
  }
}
