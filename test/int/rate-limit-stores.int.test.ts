/** One contract for the rate-limit stores present: in process always, Redis with TEST_REDIS_URL. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MemoryDistinctCounter } from '../../src/adapters/memory/distinct-counter.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { connectRedis, type RedisClient } from '../../src/adapters/redis/cache.ts';
import { RedisDistinctCounter, RedisRateLimiter } from '../../src/adapters/redis/rate-limits.ts';
import type { Clock } from '../../src/ports/clock.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';
import type { RateLimiter } from '../../src/ports/rate-limiter.ts';
import { SettableClock } from '../support/app.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const clients: RedisClient[] = [];
after(async () => {
  for (const client of clients) await client.quit();
});

const backends: { name: string; make: (clock: Clock) => Promise<{ limiter: RateLimiter; counter: DistinctCounter }> }[] = [
  { name: 'memory', make: async (clock) => ({ limiter: new MemoryRateLimiter(clock), counter: new MemoryDistinctCounter(clock) }) },
  ...(redisUrl
    ? [
        {
          name: 'redis',
          make: async (clock: Clock) => {
            const client = await connectRedis(redisUrl);
            clients.push(client);
            const prefix = `test:${Date.now()}:${Math.random()}:`;
            return {
              limiter: new RedisRateLimiter(client, clock, `${prefix}rl:`),
              counter: new RedisDistinctCounter(client, `${prefix}dc:`),
            };
          },
        },
      ]
    : []),
];

for (const backend of backends) {
  describe(`rate-limit stores on ${backend.name}`, () => {
    it('admits exactly the limit per clock-aligned window, under parallel hits', async () => {
      const clock = new SettableClock(new Date('2026-11-26T10:00:10.000Z'));
      const { limiter } = await backend.make(clock);
      const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.hit('k1', 10, 60_000)));
      assert.equal(decisions.filter((d) => d.allowed).length, 10);
      assert.ok(decisions.every((d) => d.resetAt.toISOString() === '2026-11-26T10:01:00.000Z'));
      assert.deepEqual(
        decisions
          .map((d) => d.remaining)
          .sort((a, b) => a - b)
          .slice(-1),
        [9],
      );
      clock.advanceSeconds(50);
      const next = await limiter.hit('k1', 10, 60_000);
      assert.equal(next.allowed, true);
      assert.equal(next.remaining, 9);
      assert.equal((await limiter.hit('k2', 10, 60_000)).remaining, 9);
    });

    it('counts distinct members and can take one back', async () => {
      const { counter } = await backend.make(new SettableClock(new Date('2026-11-26T10:00:00Z')));
      assert.deepEqual(await counter.add('ip:1', 'a', 60), { size: 1, isNew: true });
      assert.deepEqual(await counter.add('ip:1', 'a', 60), { size: 1, isNew: false });
      assert.deepEqual(await counter.add('ip:1', 'b', 60), { size: 2, isNew: true });
      await counter.remove('ip:1', 'b');
      assert.deepEqual(await counter.add('ip:1', 'c', 60), { size: 2, isNew: true });
    });
  });
}
