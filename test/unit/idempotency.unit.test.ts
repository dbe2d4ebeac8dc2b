/** The idempotency record, pure: replay, reuse, in flight, crash takeover, expiry, ownership. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideIdempotency,
  evolveIdempotency,
  IDEMPOTENCY_KEY_PATTERN,
  inFlightTakeoverMs,
  initialIdempotency,
  type IdempotencyCommand,
  type IdempotencyEvent,
} from '../../src/domain/idempotency/idempotency.ts';
import { spec } from '../support/decider-spec.ts';

const t0 = '2026-11-26T10:00:00.000Z';
/** The service's bound with the default consolidated deadline of 300 s: 15 minutes. */
const TAKEOVER_MS = inFlightTakeoverMs(300_000);
const at = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();
const started: IdempotencyEvent = { type: 'IdempotentCallStarted', data: { fingerprint: 'f1', requestId: 'r1', startedAt: t0 } };
const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"success":true}' };
const completed: IdempotencyEvent = { type: 'IdempotentCallCompleted', data: { requestId: 'r1', completedAt: at(5), response } };

describe('idempotency record', () => {
  const record = spec({ decide: decideIdempotency, evolve: evolveIdempotency, initialState: initialIdempotency });
  const begin = (fingerprint: string, requestId: string, now: string, takeoverAfterMs = TAKEOVER_MS): IdempotencyCommand => ({
    type: 'Begin',
    fingerprint,
    requestId,
    now,
    takeoverAfterMs,
  });
  const startedBy = (requestId: string, startedAt: string): IdempotencyEvent => ({
    type: 'IdempotentCallStarted',
    data: { fingerprint: 'f1', requestId, startedAt },
  });

  it('starts a first call', () => {
    record
      .given([])
      .when(begin('f1', 'r1', t0))
      .then([started]);
  });

  it('refuses a second call while the first is in flight, with the same or another body', () => {
    record
      .given([started])
      .when(begin('f1', 'r2', at(1000)))
      .thenRefuses({ tag: 'InProgress' });
    record
      .given([started])
      .when(begin('f2', 'r2', at(1000)))
      .thenRefuses({ tag: 'KeyReused' });
  });

  it('never takes over a call that may still be running: a consolidated analysis at its longest deadline, 15 minutes', () => {
    const longest = 15 * 60_000;
    record
      .given([started])
      .when(begin('f1', 'r2', at(longest + 60_000), inFlightTakeoverMs(longest)))
      .thenRefuses({ tag: 'InProgress' });
  });

  it('lets a later call take over a call that crashed in flight, once the takeover bound has passed', () => {
    const takeover = startedBy('r2', at(TAKEOVER_MS));
    record
      .given([started])
      .when(begin('f1', 'r2', at(TAKEOVER_MS)))
      .then([takeover]);
    // The crashed call can no longer complete the record it lost.
    record
      .given([started, takeover])
      .when({ type: 'Complete', requestId: 'r1', now: at(TAKEOVER_MS + 1), response })
      .thenRefuses({ tag: 'NotOwner' });
  });

  it('replays within 24 hours (no events), refuses another body, and starts afresh after', () => {
    const done = record.given([started, completed]);
    done.when(begin('f1', 'r2', at(3600_000))).thenNothing();
    done.when(begin('f2', 'r2', at(3600_000))).thenRefuses({ tag: 'KeyReused' });
    done
      .when(begin('f2', 'r3', at(24 * 3600_000)))
      .then([{ type: 'IdempotentCallStarted', data: { fingerprint: 'f2', requestId: 'r3', startedAt: at(24 * 3600_000) } }]);
  });

  it('lets an abandoned (failed) call run again', () => {
    record
      .given([started, { type: 'IdempotentCallAbandoned', data: { requestId: 'r1', abandonedAt: at(5) } }])
      .when(begin('f1', 'r2', at(10)))
      .then([startedBy('r2', at(10))]);
  });

  it('accepts 1 to 128 of A-Z a-z 0-9 _ . - and nothing else', () => {
    for (const good of ['a', 'A-z_0.9', 'x'.repeat(128)]) assert.ok(IDEMPOTENCY_KEY_PATTERN.test(good), good);
    for (const bad of ['', 'x'.repeat(129), 'a b', 'a/b', 'é']) assert.ok(!IDEMPOTENCY_KEY_PATTERN.test(bad), bad);
  });
});
