/**
 * One contract for the rate-limit stores present: in process always, Redis with
 * TEST_REDIS_URL. The in-process stores run on a settable clock. Redis keeps time itself
 * (windows and expiries on its own clock), so its stores are given a service clock decades
 * away from the real date: whatever the service's clock says must not change what Redis
 * counts or when its keys expire (the old limiter sent the service clock's window end as an
 * absolute expiry, and every key of a clock behind Redis's vanished at once). Waiting out a
 * window is a clock step in process and a real wait on Redis, whose windows are short here.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MemoryDistinctCounter } from '../../src/adapters/memory/distinct-counter.ts';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { connectRedis, type RedisConnection } from '../../src/adapters/redis/connection.ts';
import { RedisDistinctCounter, RedisRateLimiter } from '../../src/adapters/redis/rate-limits.ts';
import { openSharedStores } from '../../src/composition/adapters.ts';
import { testModeRedisNamespace } from '../../src/composition/test-mode-adapters.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';
import type { RateLimitDecision, RateLimiter } from '../../src/ports/rate-limiter.ts';
import { SettableClock } from '../support/app.ts';

const redisUrl = process.env.TEST_REDIS_URL;
const connections: RedisConnection[] = [];
after(async () => {
  for (const connection of connections) await connection.close();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Stores {
  readonly limiter: RateLimiter;
  readonly counter: DistinctCounter;
  /** The service clock the stores were given. */
  readonly clock: SettableClock;
  readonly windowMs: number;
  /** Moves past the end of the window `decision` was counted in. */
  passWindow(decision: RateLimitDecision): Promise<void>;
}

async function redisStores(clock: SettableClock): Promise<Stores & { connection: RedisConnection; prefix: string }> {
  const connection = await connectRedis(redisUrl!);
  connections.push(connection);
  const prefix = `test:${Date.now()}:${Math.random()}:`;
  return {
    connection,
    prefix,
    limiter: new RedisRateLimiter(connection, clock, `${prefix}rl:`),
    counter: new RedisDistinctCounter(connection, `${prefix}dc:`),
    clock,
    windowMs: 2_000,
    // The wait is a duration, the same on every clock.
    passWindow: (decision) => sleep(decision.resetAt.getTime() - clock.now().getTime() + 5),
  };
}

const backends: { name: string; make: () => Promise<Stores> }[] = [
  {
    name: 'memory',
    make: async () => {
      const clock = new SettableClock(new Date('2026-11-26T10:00:10.000Z'));
      return {
        limiter: new MemoryRateLimiter(clock),
        counter: new MemoryDistinctCounter(clock),
        clock,
        windowMs: 60_000,
        passWindow: async (decision) => clock.set(decision.resetAt),
      };
    },
  },
  ...(redisUrl
    ? [{ name: 'redis, service clock in 2001', make: () => redisStores(new SettableClock(new Date('2001-01-01T00:00:00Z'))) }]
    : []),
];

for (const backend of backends) {
  describe(`rate-limit stores on ${backend.name}`, () => {
    it('admits exactly the limit per window, under parallel hits; the next window starts afresh', async () => {
      const { limiter, clock, windowMs, passWindow } = await backend.make();
      // Start the burst at the start of a window, so it cannot straddle two.
      await passWindow(await limiter.hit('align', 1, windowMs));
      const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.hit('k1', 10, windowMs)));
      assert.equal(decisions.filter((d) => d.allowed).length, 10);
      assert.deepEqual(
        [...new Set(decisions.map((d) => d.remaining))].sort((a, b) => a - b),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      );
      const waits = decisions.map((d) => d.resetAt.getTime() - clock.now().getTime());
      assert.ok(
        waits.every((w) => w > 0 && w <= windowMs),
        `every reset lies within the window: ${waits.join(', ')}`,
      );
      assert.ok(Math.max(...waits) - Math.min(...waits) < 50, 'one window, one reset');
      await passWindow(decisions[0]!);
      const next = await limiter.hit('k1', 10, windowMs);
      assert.equal(next.allowed, true);
      assert.equal(next.remaining, 9);
      assert.equal((await limiter.hit('k2', 10, windowMs)).remaining, 9);
    });

    it('counts distinct members and can take one back', async () => {
      const { counter } = await backend.make();
      assert.deepEqual(await counter.add('ip:1', 'a', 60), { size: 1, isNew: true });
      assert.deepEqual(await counter.add('ip:1', 'a', 60), { size: 1, isNew: false });
      assert.deepEqual(await counter.add('ip:1', 'b', 60), { size: 2, isNew: true });
      await counter.remove('ip:1', 'b');
      assert.deepEqual(await counter.add('ip:1', 'c', 60), { size: 2, isNew: true });
    });
  });
}

if (redisUrl)
  describe("Redis stores keep Redis's time", () => {
    it('instances whose clocks are decades apart share one window and one count', async () => {
      const past = await redisStores(new SettableClock(new Date('2001-01-01T00:00:00Z')));
      const future = new SettableClock(new Date('2099-01-01T00:00:00Z'));
      const ahead = new RedisRateLimiter(past.connection, future, `${past.prefix}rl:`);
      await past.passWindow(await past.limiter.hit('shared', 1, past.windowMs));
      const decisions = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? past.limiter : ahead).hit('shared', 8, past.windowMs)),
      );
      assert.equal(decisions.filter((d) => d.allowed).length, 8);
      const aheadWait = decisions[1]!.resetAt.getTime() - future.now().getTime();
      assert.ok(aheadWait > 0 && aheadWait <= past.windowMs, 'each states the reset on its own clock');
    });

    it('a counter lives for the rest of its window plus a margin, a distinct set for its time to live, set once', async () => {
      for (const clock of [new SettableClock(new Date('2001-01-01T00:00:00Z')), new SettableClock(new Date('2099-01-01T00:00:00Z'))]) {
        const { connection, prefix, limiter, counter } = await redisStores(clock);
        await limiter.hit('ttl', 5, 60_000);
        const pttl = await connection.call((c) => c.pTTL(`${prefix}rl:ttl`));
        assert.ok(pttl > 0 && pttl <= 61_000, `rate-limit key expires in ${pttl} ms`);
        await counter.add('set', 'a', 60);
        await counter.add('set', 'b', 3_600);
        const ttl = await connection.call((c) => c.ttl(`${prefix}dc:set`));
        assert.ok(ttl > 0 && ttl <= 60, `distinct set expires in ${ttl} s`);
      }
    });
  });

if (redisUrl)
  describe('deployments sharing one Redis (REDIS_PREFIX)', () => {
    it("count apart, and each one's keys start with its prefix", async () => {
      const clock = new SettableClock(new Date('2026-11-29T10:00:00Z'));
      const tag = `t${Date.now()}${Math.floor(Math.random() * 1e6)}`;
      const staging = await openSharedStores({ REDIS_URL: redisUrl, REDIS_PREFIX: `${tag}-staging` }, clock);
      const production = await openSharedStores({ REDIS_URL: redisUrl, REDIS_PREFIX: `${tag}-production` }, clock);
      const stagingTests = await openSharedStores(
        { REDIS_URL: redisUrl, REDIS_PREFIX: `${tag}-staging` },
        clock,
        testModeRedisNamespace(`${tag}-staging`),
      );
      const connection = await connectRedis(redisUrl);
      connections.push(connection);
      try {
        for (const member of ['k1', 'k2', 'k3']) await staging.distinctKeys.add('ip-keys:127.0.0.1', member, 60);
        assert.equal((await production.distinctKeys.add('ip-keys:127.0.0.1', 'k9', 60)).size, 1);
        assert.equal((await stagingTests.distinctKeys.add('ip-keys:127.0.0.1', 'k9', 60)).size, 1);
        assert.equal((await staging.distinctKeys.add('ip-keys:127.0.0.1', 'k4', 60)).size, 4);
        for (let i = 0; i < 2; i++) await staging.limiter.hit('acct', 2, 60_000);
        assert.equal((await staging.limiter.hit('acct', 2, 60_000)).allowed, false);
        assert.equal((await production.limiter.hit('acct', 2, 60_000)).allowed, true);
        const keys = (await connection.call((c) => c.keys(`${tag}*`))).sort();
        assert.deepEqual(keys, [
          `${tag}-production:dc:ip-keys:127.0.0.1`,
          `${tag}-production:rl:acct`,
          `${tag}-staging-test:dc:ip-keys:127.0.0.1`,
          `${tag}-staging:dc:ip-keys:127.0.0.1`,
          `${tag}-staging:rl:acct`,
        ]);
        await connection.call((c) => c.del(keys));
      } finally {
        await Promise.all([staging.close(), production.close(), stagingTests.close()]);
      }
    });
  });
