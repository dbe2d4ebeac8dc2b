/** The idempotency record, pure: replay, reuse, in flight, lease renewal, crash takeover, expiry, ownership. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  admit,
  decideIdempotency,
  evolveIdempotency,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_LEASE_MS,
  inFlightTakeoverMs,
  initialIdempotency,
  type IdempotencyCommand,
  type IdempotencyEvent,
} from '../../src/domain/idempotency/idempotency.ts';
import { spec } from '../support/decider-spec.ts';

const t0 = '2026-11-26T10:00:00.000Z';
const LEASE = IDEMPOTENCY_LEASE_MS;
/** The bound for records started before leases, with the default consolidated deadline of 300 s: 15 minutes. */
const LEGACY_MS = inFlightTakeoverMs(300_000);
const at = (ms: number) => new Date(Date.parse(t0) + ms).toISOString();
const startedBy = (requestId: string, startedAt: number, callId = 'r1', fingerprint = 'f1'): IdempotencyEvent => ({
  type: 'IdempotentCallStarted',
  data: { fingerprint, requestId, startedAt: at(startedAt), callId, leaseUntil: at(startedAt + LEASE) },
});
const started = startedBy('r1', 0);
const renewed = (requestId: string, now: number): IdempotencyEvent => ({
  type: 'IdempotentCallLeaseRenewed',
  data: { requestId, leaseUntil: at(now + LEASE) },
});
/** As written before leases: no call id, no lease. */
const legacyStarted: IdempotencyEvent = { type: 'IdempotentCallStarted', data: { fingerprint: 'f1', requestId: 'r1', startedAt: t0 } };
const response = { status: 201, headers: { 'content-type': 'application/json' }, body: '{"success":true}' };
const completed: IdempotencyEvent = { type: 'IdempotentCallCompleted', data: { requestId: 'r1', completedAt: at(5), response } };

describe('idempotency record', () => {
  const record = spec({ decide: decideIdempotency, evolve: evolveIdempotency, initialState: initialIdempotency });
  const begin = (fingerprint: string, requestId: string, now: number): IdempotencyCommand => ({
    type: 'Begin',
    fingerprint,
    requestId,
    now: at(now),
    leaseMs: LEASE,
    legacyTakeoverAfterMs: LEGACY_MS,
  });
  const renew = (requestId: string, now: number): IdempotencyCommand => ({ type: 'Renew', requestId, now: at(now), leaseMs: LEASE });

  it('starts a first call under its own id, holding a lease', () => {
    record
      .given([])
      .when(begin('f1', 'r1', 0))
      .then([started]);
  });

  it('refuses a second call while the lease runs, with the same or another body', () => {
    record
      .given([started])
      .when(begin('f1', 'r2', LEASE - 1))
      .thenRefuses({ tag: 'InProgress' });
    record
      .given([started])
      .when(begin('f2', 'r2', LEASE - 1))
      .thenRefuses({ tag: 'KeyReused' });
  });

  it('keeps a long call that renews its lease: never taken over while its holder lives', () => {
    const tenMinutes = 10 * 60_000;
    record
      .given([started])
      .when(renew('r1', LEASE - 1000))
      .then([renewed('r1', LEASE - 1000)]);
    record
      .given([started, renewed('r1', tenMinutes)])
      .when(begin('f1', 'r2', tenMinutes + LEASE - 1))
      .thenRefuses({ tag: 'InProgress' });
  });

  it('lets a retry take over once the lease lapses, under the dead call id; the dead holder can neither renew nor complete', () => {
    const takeover = startedBy('r2', LEASE, 'r1');
    record
      .given([started])
      .when(begin('f1', 'r2', LEASE))
      .then([takeover]);
    const after = record.given([started, takeover]);
    after.when(renew('r1', LEASE + 1)).thenRefuses({ tag: 'NotOwner' });
    after.when({ type: 'Complete', requestId: 'r1', now: at(LEASE + 1), response }).thenRefuses({ tag: 'NotOwner' });
    after.when({ type: 'Abandon', requestId: 'r1', now: at(LEASE + 1) }).thenRefuses({ tag: 'NotOwner' });
    // A second takeover still carries the first call's id.
    record
      .given([started, takeover])
      .when(begin('f1', 'r3', 2 * LEASE))
      .then([startedBy('r3', 2 * LEASE, 'r1')]);
  });

  it('refuses a lapsed call to a retry with another body for the rest of the day, then frees the key', () => {
    record
      .given([started])
      .when(begin('f2', 'r2', LEASE * 10))
      .thenRefuses({ tag: 'KeyReused' });
    record
      .given([started])
      .when(begin('f2', 'r2', 24 * 3600_000))
      .then([startedBy('r2', 24 * 3600_000, 'r2', 'f2')]);
  });

  it('keeps the old bound for a record started before leases: its holder may still run and does not renew', () => {
    record
      .given([legacyStarted])
      .when(begin('f1', 'r2', LEGACY_MS - 1))
      .thenRefuses({ tag: 'InProgress' });
    record
      .given([legacyStarted])
      .when(begin('f1', 'r2', LEGACY_MS))
      .then([startedBy('r2', LEGACY_MS, 'r1')]);
  });

  it('tells the call id: its own for a fresh call, the dead call for a takeover', () => {
    const state = evolveIdempotency(initialIdempotency, started);
    assert.deepEqual(admit(initialIdempotency, 'f1', 'r9', at(0), LEGACY_MS), { kind: 'proceed', callId: 'r9' });
    assert.deepEqual(admit(state, 'f1', 'r9', at(LEASE), LEGACY_MS), { kind: 'proceed', callId: 'r1' });
  });

  it('replays within 24 hours (no events), refuses another body, and starts afresh after', () => {
    const done = record.given([started, completed]);
    done.when(begin('f1', 'r2', 3600_000)).thenNothing();
    done.when(begin('f2', 'r2', 3600_000)).thenRefuses({ tag: 'KeyReused' });
    done.when(begin('f2', 'r3', 24 * 3600_000)).then([startedBy('r3', 24 * 3600_000, 'r3', 'f2')]);
  });

  it('lets an abandoned (failed) call run again under a new id', () => {
    record
      .given([started, { type: 'IdempotentCallAbandoned', data: { requestId: 'r1', abandonedAt: at(5) } }])
      .when(begin('f1', 'r2', 10))
      .then([startedBy('r2', 10, 'r2')]);
  });

  it('renews only for the holder, and not once the call ended', () => {
    record.given([started]).when(renew('r2', 1)).thenRefuses({ tag: 'NotOwner' });
    record.given([started, completed]).when(renew('r1', 10)).thenRefuses({ tag: 'NotOwner' });
  });

  it('accepts 1 to 128 of A-Z a-z 0-9 _ . - and nothing else', () => {
    for (const good of ['a', 'A-z_0.9', 'x'.repeat(128)]) assert.ok(IDEMPOTENCY_KEY_PATTERN.test(good), good);
    for (const bad of ['', 'x'.repeat(129), 'a b', 'a/b', 'é']) assert.ok(!IDEMPOTENCY_KEY_PATTERN.test(bad), bad);
  });
});
