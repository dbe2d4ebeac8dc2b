/** Redis-backed cache, shared by every instance when REDIS_URL is set. Values are JSON. */
import { createClient, type RedisClientType } from 'redis';
import type { Cache } from '../../ports/cache.ts';

export type RedisClient = RedisClientType;

export async function connectRedis(url: string): Promise<RedisClient> {
  const client: RedisClient = createClient({
    url,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
  });
  // Without a listener, a dropped connection would crash the process; health reports it instead.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

export class RedisCache implements Cache {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix = 'court-records:',
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    const raw = await this.client.get(this.prefix + key);
    return raw === null ? undefined : (JSON.parse(raw) as T);
  }

  async set(key: string, value: unknown, ttlSeconds: number): Promise<void> {
    await this.client.set(this.prefix + key, JSON.stringify(value), { EX: ttlSeconds });
  }

  async ping(): Promise<void> {
    await this.client.ping();
  }
}
