/** The webhook fairness policy, without IO: round-robin starts, per-account limits, the pending cap, disabling. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admitsDelivery, disablingReason, planStarts, type WaitingDelivery } from '../../src/domain/webhook/fair-delivery.ts';

const waiting = (accountId: string, n: number): WaitingDelivery[] =>
  Array.from({ length: n }, (_, i) => ({ deliveryId: `${accountId}-${String(i)}`, accountId }));

describe('planStarts', () => {
  it("takes accounts in turn, so a backlog created first does not go ahead of another account's delivery", () => {
    const plan = planStarts([...waiting('noisy', 5), ...waiting('quiet', 1)], new Map(), 10, 3);
    assert.deepEqual(
      plan.map((d) => d.deliveryId),
      ['noisy-0', 'quiet-0', 'noisy-1'],
    );
  });

  it('starts no more of an account than its in-flight limit leaves room for', () => {
    const plan = planStarts([...waiting('a', 5), ...waiting('b', 5)], new Map([['a', 1]]), 2, 100);
    assert.deepEqual(
      plan.map((d) => d.deliveryId),
      ['a-0', 'b-0', 'b-1'],
    );
  });

  it('starts nothing for an account at its limit, and keeps each account oldest first', () => {
    assert.deepEqual(planStarts(waiting('a', 3), new Map([['a', 2]]), 2, 100), []);
    assert.deepEqual(
      planStarts(waiting('a', 3), new Map(), 3, 100).map((d) => d.deliveryId),
      ['a-0', 'a-1', 'a-2'],
    );
  });
});

describe('admitsDelivery', () => {
  it('admits below the cap and drops at it', () => {
    assert.equal(admitsDelivery(9, 10), true);
    assert.equal(admitsDelivery(10, 10), false);
  });
});

describe('disablingReason', () => {
  const policy = { afterFailures: 3, afterMs: 3_600_000 };
  const since = new Date('2026-11-01T00:00:00Z');

  it('keeps an endpoint until both the count and the span are reached', () => {
    assert.equal(disablingReason({ consecutive: 2, since }, new Date('2026-11-05T00:00:00Z'), policy), null);
    assert.equal(disablingReason({ consecutive: 100, since }, new Date('2026-11-01T00:59:59Z'), policy), null);
  });

  it('disables with a reason naming the failures and their span', () => {
    assert.equal(
      disablingReason({ consecutive: 3, since }, new Date('2026-11-01T02:30:00Z'), policy),
      '3 consecutive failed attempts over 2 h',
    );
    assert.equal(
      disablingReason({ consecutive: 3, since }, since, { afterFailures: 3, afterMs: 0 }),
      '3 consecutive failed attempts over less than an hour',
    );
  });
});
