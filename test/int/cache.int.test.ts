/** One contract for every cache backend present: in-process always, Redis with TEST_REDIS_URL. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MemoryCache } from '../../src/adapters/memory/cache.ts';
import { RedisCache } from '../../src/adapters/redis/cache.ts';
import { connectRedis, type RedisConnection } from '../../src/adapters/redis/connection.ts';
import type { Cache } from '../../src/ports/cache.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const connections: RedisConnection[] = [];

const backends: { name: string; make: () => Promise<Cache> }[] = [
  { name: 'memory', make: async () => new MemoryCache({ now: () => new Date() }) },
  ...(redisUrl
    ? [
        {
          name: 'redis',
          make: async () => {
            const connection = await connectRedis(redisUrl);
            connections.push(connection);
            return new RedisCache(connection, `test:${Date.now()}:`);
          },
        },
      ]
    : []),
];

after(async () => {
  for (const connection of connections) await connection.close();
});

for (const backend of backends) {
  describe(`cache contract on ${backend.name}`, () => {
    it('round-trips JSON values and answers ping', async () => {
      const cache = await backend.make();
      await cache.ping(new AbortController().signal);
      assert.equal(await cache.get('missing'), undefined);
      await cache.set('k', { a: [1, 'two', null], b: { c: true } }, 60);
      assert.deepEqual(await cache.get('k'), { a: [1, 'two', null], b: { c: true } });
    });

    it('forgets a value after its time to live', async () => {
      const cache = await backend.make();
      await cache.set('short', 1, 1);
      assert.equal(await cache.get('short'), 1);
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal(await cache.get('short'), undefined);
    });
  });
}
