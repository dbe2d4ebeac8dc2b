/**
 * The failed-attempt throttle over the in-process limiter: the allowance per address and
 * window, the block known before any check, IPv6 counted per /64 and IPv4-mapped addresses
 * as IPv4, and a store that fails leaving attempts uncounted (open), as other limits do.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { attemptSource, FailedAttemptThrottle } from '../../src/application/access/failed-attempt-throttle.ts';
import type { Clock } from '../../src/ports/clock.ts';
import type { RateLimiter } from '../../src/ports/rate-limiter.ts';

class SettableClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
  advanceSeconds(seconds: number): void {
    this.current = new Date(this.current.getTime() + seconds * 1000);
  }
}

function throttle(clock: SettableClock, limiter: RateLimiter = new MemoryRateLimiter(clock)) {
  const blockedLog: string[] = [];
  const storeFailures: unknown[] = [];
  const failures = new FailedAttemptThrottle({
    limiter,
    clock,
    scope: 'test',
    maxFailures: 3,
    windowMs: 60_000,
    onStoreFailure: (error) => storeFailures.push(error),
    onBlocked: (source, until) => blockedLog.push(`${source} until ${until.toISOString()}`),
  });
  return { failures, blockedLog, storeFailures };
}

describe('failed attempt throttle', () => {
  it('blocks an address after its allowance until the window ends, and no other address', async () => {
    const clock = new SettableClock(new Date('2026-11-26T10:00:15Z'));
    const { failures, blockedLog } = throttle(clock);
    for (let i = 0; i < 2; i += 1) await failures.recordFailure('192.0.2.1');
    assert.equal(failures.blocked('192.0.2.1'), undefined);
    await failures.recordFailure('192.0.2.1');
    assert.deepEqual(failures.blocked('192.0.2.1'), { until: new Date('2026-11-26T10:01:00Z'), retryAfterSeconds: 45, maxFailures: 3 });
    assert.equal(failures.blocked('192.0.2.2'), undefined);
    await failures.recordFailure('192.0.2.1');
    assert.deepEqual(blockedLog, ['192.0.2.1 until 2026-11-26T10:01:00.000Z'], 'reported once per window');
    clock.advanceSeconds(45);
    assert.equal(failures.blocked('192.0.2.1'), undefined);
  });

  it('counts an IPv6 address by its /64 and an IPv4-mapped address as IPv4', async () => {
    assert.equal(attemptSource('2001:db8:1:2:aaaa::1'), '2001:0db8:0001:0002::/64');
    assert.equal(attemptSource('::ffff:203.0.113.10'), '203.0.113.10');
    assert.equal(attemptSource('not an address'), 'not an address');
    const { failures } = throttle(new SettableClock(new Date('2026-11-26T10:00:00Z')));
    for (const host of ['1', '2', '3']) await failures.recordFailure(`2001:db8:1:2::${host}`);
    assert.ok(failures.blocked('2001:db8:1:2:ffff::9'));
    assert.equal(failures.blocked('2001:db8:1:3::1'), undefined);
    for (let i = 0; i < 3; i += 1) await failures.recordFailure('::ffff:198.51.100.4');
    assert.ok(failures.blocked('198.51.100.4'));
  });

  it('learns a block counted by another instance at its own next failure', async () => {
    const clock = new SettableClock(new Date('2026-11-26T10:00:00Z'));
    const shared = new MemoryRateLimiter(clock);
    const [a, b] = [throttle(clock, shared).failures, throttle(clock, shared).failures];
    for (let i = 0; i < 3; i += 1) await a.recordFailure('192.0.2.9');
    assert.ok(a.blocked('192.0.2.9'));
    assert.equal(b.blocked('192.0.2.9'), undefined);
    await b.recordFailure('192.0.2.9');
    assert.ok(b.blocked('192.0.2.9'));
  });

  it('leaves attempts uncounted when the store fails, and reports it', async () => {
    const down: RateLimiter = { hit: () => Promise.reject(new Error('store down')) };
    const { failures, storeFailures } = throttle(new SettableClock(new Date('2026-11-26T10:00:00Z')), down);
    for (let i = 0; i < 5; i += 1) await failures.recordFailure('192.0.2.1');
    assert.equal(failures.blocked('192.0.2.1'), undefined);
    assert.equal(storeFailures.length, 5);
  });
});
