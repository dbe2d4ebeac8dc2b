/**
 * Redis-backed cache, shared by every instance when REDIS_URL is set. Values are JSON, with
 * a time to live relative to Redis's clock (SET EX). Every call is bounded by the
 * connection; the callers treat the cache as soft (a failed read is a miss). A SET that
 * times out may still land later: harmless, since the value was right when computed.
 */
import type { Cache } from '../../ports/cache.ts';
import type { RedisConnection } from './connection.ts';

export class RedisCache implements Cache {
  constructor(
    private readonly redis: RedisConnection,
    private readonly prefix = 'court-records:',
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.redis.call((c) => c.get(this.prefix + key));
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    await this.redis.call((c) => c.set(this.prefix + key, JSON.stringify(value), { EX: ttlSeconds }));
  }

  /** Bounded by the connection's call timeout, well inside the health check's own bound. */
  async ping(): Promise<void> {
    await this.redis.call((c) => c.ping());
  }
}
