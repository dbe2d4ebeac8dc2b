/**
 * Password guessing made expensive, without IO: the policy's growing waits and lock, the
 * throttle counting per account and per address block (IPv4 /32, IPv6 /64) over the
 * in-process limiter, the longer wait winning, locks lasting their period, a failing store
 * leaving failures uncounted, the in-process counts bounded, and the hash gate refusing
 * rather than queueing without bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimiter } from '../../src/adapters/memory/rate-limiter.ts';
import { HashGate } from '../../src/application/sessions/hash-gate.ts';
import { LoginThrottle } from '../../src/application/sessions/login-throttle.ts';
import {
  ACCOUNT_LOGIN_POLICY,
  ADDRESS_LOGIN_POLICY,
  waitAfterFailures,
  type LoginThrottlePolicy,
} from '../../src/domain/access/login-throttle.ts';
import type { Clock } from '../../src/ports/clock.ts';
import type { RateLimiter } from '../../src/ports/rate-limiter.ts';

class SettableClock implements Clock {
  constructor(private current: Date) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

const POLICY: LoginThrottlePolicy = { freeFailures: 2, baseDelayMs: 1_000, maxDelayMs: 8_000, lockAfter: 8, lockMs: 600_000 };

function throttle(clock: SettableClock, limiter: RateLimiter = new MemoryRateLimiter(clock)) {
  const locked: string[] = [];
  const storeFailures: unknown[] = [];
  const login = new LoginThrottle({
    limiter,
    clock,
    account: POLICY,
    address: { ...POLICY, freeFailures: 4, lockAfter: 12 },
    onStoreFailure: (error) => storeFailures.push(error),
    onLocked: (scope, source) => locked.push(`${scope}:${source}`),
  });
  return { login, locked, storeFailures };
}

describe('login throttle policy', () => {
  it('costs nothing for the free failures, then doubles up to the ceiling, then locks', () => {
    const waits = Array.from({ length: 9 }, (_, i) => waitAfterFailures(i + 1, POLICY));
    assert.deepEqual(waits, [
      { kind: 'none' },
      { kind: 'none' },
      { kind: 'delay', ms: 1_000 },
      { kind: 'delay', ms: 2_000 },
      { kind: 'delay', ms: 4_000 },
      { kind: 'delay', ms: 8_000 },
      { kind: 'delay', ms: 8_000 },
      { kind: 'lock', ms: 600_000 },
      { kind: 'lock', ms: 600_000 },
    ]);
  });

  it('gives an address block more room than an account, and both a lock', () => {
    assert.ok(ADDRESS_LOGIN_POLICY.freeFailures > ACCOUNT_LOGIN_POLICY.freeFailures);
    assert.ok(ADDRESS_LOGIN_POLICY.lockAfter > ACCOUNT_LOGIN_POLICY.lockAfter);
    assert.equal(waitAfterFailures(ACCOUNT_LOGIN_POLICY.lockAfter, ACCOUNT_LOGIN_POLICY).kind, 'lock');
    assert.equal(waitAfterFailures(10_000, ACCOUNT_LOGIN_POLICY).kind, 'lock');
  });
});

describe('login throttle', () => {
  it('delays an account after its free failures, whatever the address, and not another account', async () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const { login } = throttle(clock);
    for (let i = 0; i < 2; i += 1) await login.recordFailure('victim@firm.example', `198.51.100.${i}`);
    assert.equal(login.check('victim@firm.example', '198.51.100.9'), undefined);
    await login.recordFailure('Victim@Firm.example ', '198.51.100.3');
    const refused = login.check('victim@firm.example', '203.0.113.7');
    assert.deepEqual(refused && { locked: refused.locked, scope: refused.scope, retry: refused.retryAfterSeconds }, {
      locked: false,
      scope: 'account',
      retry: 1,
    });
    assert.equal(login.check('someone@else.example', '203.0.113.7'), undefined);
    clock.advance(1_000);
    assert.equal(login.check('victim@firm.example', '203.0.113.7'), undefined);
    await login.recordFailure('victim@firm.example', '198.51.100.4');
    assert.equal(login.check('victim@firm.example', '203.0.113.7')?.retryAfterSeconds, 2);
  });

  it('locks an account for the lock period once it reaches the threshold', async () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const { login, locked } = throttle(clock);
    for (let i = 0; i < 8; i += 1) await login.recordFailure('victim@firm.example', `198.51.100.${i}`);
    const refused = login.check('victim@firm.example', '192.0.2.1');
    assert.equal(refused?.locked, true);
    assert.equal(refused.retryAfterSeconds, 600);
    assert.deepEqual(locked, ['account:victim@firm.example']);
    clock.advance(599_000);
    assert.equal(login.check('victim@firm.example', '192.0.2.1')?.locked, true);
    clock.advance(1_000);
    assert.equal(login.check('victim@firm.example', '192.0.2.1'), undefined);
  });

  it('counts an IPv6 /64 as one block, so rotating addresses inside it does not help', async () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const { login } = throttle(clock);
    for (let i = 1; i <= 5; i += 1) await login.recordFailure(`guess${i}@firm.example`, `2001:db8:1:2::${i.toString(16)}`);
    const refused = login.check('fresh@firm.example', '2001:db8:1:2:ffff:ffff:ffff:ffff');
    assert.equal(refused?.scope, 'address');
    assert.equal(login.check('fresh@firm.example', '2001:db8:1:3::1'), undefined);
  });

  it('counts IPv4 per address: a neighbour is not held up', async () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const { login } = throttle(clock);
    for (let i = 1; i <= 5; i += 1) await login.recordFailure(`guess${i}@firm.example`, '198.51.100.7');
    assert.equal(login.check('fresh@firm.example', '::ffff:198.51.100.7')?.scope, 'address');
    assert.equal(login.check('fresh@firm.example', '198.51.100.8'), undefined);
  });

  it('answers the longer of the account and address waits', async () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const { login } = throttle(clock);
    for (let i = 0; i < 8; i += 1) await login.recordFailure('victim@firm.example', '198.51.100.7');
    const refused = login.check('victim@firm.example', '198.51.100.7');
    assert.equal(refused?.scope, 'account');
    assert.equal(refused.locked, true);
  });

  it('shares counts through the store: a second instance learns the lock at its own next failure', async () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const shared = new MemoryRateLimiter(clock);
    const first = throttle(clock, shared).login;
    const second = throttle(clock, shared).login;
    for (let i = 0; i < 7; i += 1) await first.recordFailure('victim@firm.example', `198.51.100.${i}`);
    await second.recordFailure('victim@firm.example', '198.51.100.99');
    assert.equal(second.check('victim@firm.example', '192.0.2.1')?.locked, true);
  });

  it('checks one login at a time per account, and frees the account once released', () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const { login } = throttle(clock);
    const claim = login.begin('victim@firm.example');
    assert.ok('release' in claim);
    const second = login.begin(' VICTIM@firm.example');
    assert.ok('refusal' in second);
    assert.deepEqual(
      { ...second.refusal, until: second.refusal.until.toISOString() },
      {
        locked: false,
        scope: 'account',
        until: '2026-11-29T03:00:06.000Z',
        retryAfterSeconds: 1,
      },
    );
    assert.ok('release' in login.begin('other@firm.example'));
    claim.release();
    assert.ok('release' in login.begin('victim@firm.example'));
  });

  it('leaves a failure uncounted when the store fails, and says so', async () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const broken: RateLimiter = { hit: () => Promise.reject(new Error('store down')) };
    const { login, storeFailures } = throttle(clock, broken);
    for (let i = 0; i < 10; i += 1) await login.recordFailure('victim@firm.example', '198.51.100.7');
    assert.equal(login.check('victim@firm.example', '198.51.100.7'), undefined);
    assert.equal(storeFailures.length, 20);
  });
});

describe('in-process counts', () => {
  it('stay bounded under a flood of distinct accounts: the oldest counts are dropped, not the process', async () => {
    const clock = new SettableClock(new Date('2026-11-29T03:00:05Z'));
    const limiter = new MemoryRateLimiter(clock);
    await limiter.hit('failed:login-account:first@firm.example', 1, 900_000);
    assert.equal((await limiter.hit('failed:login-account:first@firm.example', 1, 900_000)).allowed, false);
    for (let i = 0; i < 100_001; i += 1) await limiter.hit(`failed:login-account:flood${i}@guess.example`, 1, 900_000);
    assert.equal((await limiter.hit('failed:login-account:first@firm.example', 1, 900_000)).allowed, true);
    assert.equal((await limiter.hit('failed:login-account:flood100000@guess.example', 1, 900_000)).allowed, false);
  });
});

describe('hash gate', () => {
  it('runs at most its concurrency, queues at most its queue, and refuses the rest at once', async () => {
    const gate = new HashGate({ concurrency: 2, queue: 1 });
    let running = 0;
    let peak = 0;
    const releases: (() => void)[] = [];
    const work = () =>
      new Promise<string>((resolve) => {
        running += 1;
        peak = Math.max(peak, running);
        releases.push(() => {
          running -= 1;
          resolve('done');
        });
      });
    const calls = [gate.run(work), gate.run(work), gate.run(work)];
    assert.deepEqual(await gate.run(work), { ok: false });
    assert.equal(running, 2);
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(running, 2);
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(await Promise.all(calls), [
      { ok: true, value: 'done' },
      { ok: true, value: 'done' },
      { ok: true, value: 'done' },
    ]);
    assert.equal(peak, 2);
    assert.deepEqual(await gate.run(async () => 'again'), { ok: true, value: 'again' });
  });

  it('frees its slot when the work fails', async () => {
    const gate = new HashGate({ concurrency: 1, queue: 0 });
    await assert.rejects(gate.run(() => Promise.reject(new Error('scrypt failed'))));
    assert.deepEqual(await gate.run(async () => 1), { ok: true, value: 1 });
  });
});
