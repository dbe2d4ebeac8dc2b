/** The idempotency record, pure: replay, reuse, in flight, crash takeover, expiry, ownership. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fold } from '../../src/domain/decider.ts';
import {
  decideIdempotency,
  evolveIdempotency,
  IDEMPOTENCY_KEY_PATTERN,
  inFlightTakeoverMs,
  initialIdempotency,
  type IdempotencyEvent,
} from '../../src/domain/idempotency/idempotency.ts';

const t0 = '2026-11-26T10:00:00.000Z';
/** The service's bound with the default consolidated deadline of 300 s: 15 minutes. */
const TAKEOVER_MS = inFlightTakeoverMs(300_000);
const at = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();
const started: IdempotencyEvent = { type: 'IdempotentCallStarted', data: { fingerprint: 'f1', requestId: 'r1', startedAt: t0 } };
const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"success":true}' };
const completed: IdempotencyEvent = { type: 'IdempotentCallCompleted', data: { requestId: 'r1', completedAt: at(5), response } };

describe('idempotency record', () => {
  it('starts a first call', () => {
    assert.deepEqual(
      decideIdempotency({ type: 'Begin', fingerprint: 'f1', requestId: 'r1', now: t0, takeoverAfterMs: TAKEOVER_MS }, initialIdempotency),
      {
        ok: true,
        events: [started],
      },
    );
  });

  it('refuses a second call while the first is in flight, with the same or another body', () => {
    const state = fold(evolveIdempotency, initialIdempotency, [started]);
    assert.deepEqual(
      decideIdempotency({ type: 'Begin', fingerprint: 'f1', requestId: 'r2', now: at(1000), takeoverAfterMs: TAKEOVER_MS }, state),
      {
        ok: false,
        error: { tag: 'InProgress' },
      },
    );
    assert.deepEqual(
      decideIdempotency({ type: 'Begin', fingerprint: 'f2', requestId: 'r2', now: at(1000), takeoverAfterMs: TAKEOVER_MS }, state),
      {
        ok: false,
        error: { tag: 'KeyReused' },
      },
    );
  });

  it('never takes over a call that may still be running: a consolidated analysis at its longest deadline, 15 minutes', () => {
    const longest = 15 * 60_000;
    const state = fold(evolveIdempotency, initialIdempotency, [started]);
    const retry = decideIdempotency(
      { type: 'Begin', fingerprint: 'f1', requestId: 'r2', now: at(longest + 60_000), takeoverAfterMs: inFlightTakeoverMs(longest) },
      state,
    );
    assert.deepEqual(retry, { ok: false, error: { tag: 'InProgress' } });
  });

  it('lets a later call take over a call that crashed in flight, once the takeover bound has passed', () => {
    const state = fold(evolveIdempotency, initialIdempotency, [started]);
    const takeover = decideIdempotency(
      { type: 'Begin', fingerprint: 'f1', requestId: 'r2', now: at(TAKEOVER_MS), takeoverAfterMs: TAKEOVER_MS },
      state,
    );
    assert.ok(takeover.ok && takeover.events[0]?.type === 'IdempotentCallStarted');
    const after = fold(evolveIdempotency, state, takeover.events);
    // The crashed call can no longer complete the record it lost.
    assert.deepEqual(decideIdempotency({ type: 'Complete', requestId: 'r1', now: at(TAKEOVER_MS + 1), response }, after), {
      ok: false,
      error: { tag: 'NotOwner' },
    });
  });

  it('replays within 24 hours (no events), refuses another body, and starts afresh after', () => {
    const state = fold(evolveIdempotency, initialIdempotency, [started, completed]);
    assert.deepEqual(
      decideIdempotency({ type: 'Begin', fingerprint: 'f1', requestId: 'r2', now: at(3600_000), takeoverAfterMs: TAKEOVER_MS }, state),
      {
        ok: true,
        events: [],
      },
    );
    assert.deepEqual(
      decideIdempotency({ type: 'Begin', fingerprint: 'f2', requestId: 'r2', now: at(3600_000), takeoverAfterMs: TAKEOVER_MS }, state),
      {
        ok: false,
        error: { tag: 'KeyReused' },
      },
    );
    const next = decideIdempotency(
      { type: 'Begin', fingerprint: 'f2', requestId: 'r3', now: at(24 * 3600_000), takeoverAfterMs: TAKEOVER_MS },
      state,
    );
    assert.ok(next.ok && next.events.length === 1);
  });

  it('lets an abandoned (failed) call run again', () => {
    const state = fold(evolveIdempotency, initialIdempotency, [
      started,
      { type: 'IdempotentCallAbandoned', data: { requestId: 'r1', abandonedAt: at(5) } },
    ]);
    const again = decideIdempotency(
      { type: 'Begin', fingerprint: 'f1', requestId: 'r2', now: at(10), takeoverAfterMs: TAKEOVER_MS },
      state,
    );
    assert.ok(again.ok && again.events.length === 1);
  });

  it('accepts 1 to 128 of A-Z a-z 0-9 _ . - and nothing else', () => {
    for (const good of ['a', 'A-z_0.9', 'x'.repeat(128)]) assert.ok(IDEMPOTENCY_KEY_PATTERN.test(good), good);
    for (const bad of ['', 'x'.repeat(129), 'a b', 'a/b', 'é']) assert.ok(!IDEMPOTENCY_KEY_PATTERN.test(bad), bad);
  });
});
