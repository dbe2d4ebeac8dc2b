/**
 * The month-end close over ledger events alone, and the payment-reference reuse rule: IST
 * month boundaries, each kind of movement counted once in its month, consumption by
 * endpoint, the proof against the stored balance, and each way a ledger can be wrong.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  closeAccount,
  closeTotal,
  monthOf,
  monthWindow,
  rupees,
  UNATTRIBUTED,
  type RecordedLedgerEvent,
} from '../../src/domain/credits/close.ts';
import { decideLedger, evolveLedger, initialLedger, type LedgerCommand, type LedgerEvent } from '../../src/domain/credits/ledger.ts';
import { decideReferenceReuse } from '../../src/domain/credits/payment-reference.ts';
import { fold } from '../../src/domain/decider.ts';
import { rule } from '../support/decider-spec.ts';

const ACCOUNT = 'org_acme';
const OCTOBER = monthWindow('2026-10')!;

/** Runs commands through the real decider, recording each event at its command's time. */
function ledger(commands: readonly LedgerCommand[]): RecordedLedgerEvent[] {
  const recorded: RecordedLedgerEvent[] = [];
  let state = initialLedger;
  for (const command of commands) {
    const decision = decideLedger(command, state);
    assert.ok(decision.ok, JSON.stringify(decision));
    state = fold(evolveLedger, state, decision.events);
    for (const event of decision.events) recorded.push({ event, streamPosition: recorded.length + 1, recordedAt: new Date(command.at) });
  }
  return recorded;
}

const grant = (
  grantId: string,
  amount: number,
  at: string,
  source: 'purchase' | 'grant' | 'correction' = 'purchase',
  expiresAt: string | null = null,
) =>
  ({
    type: 'GrantCredits',
    accountId: ACCOUNT,
    grantId,
    amount,
    source,
    expiresAt,
    note: null,
    paymentReference: `PAY-${grantId}`,
    at,
  }) as const;
const charge = (chargeId: string, amount: number, at: string) =>
  ({ type: 'ChargeCredits', accountId: ACCOUNT, chargeId, amount, requestRef: `req-${chargeId}`, at }) as const;

const endpoints: Record<string, string> = { 'req-c1': 'GET /cases/:id', 'req-c2': 'POST /search/cases', 'req-c3': 'GET /cases/:id' };
const endpointOf = (ref: string) => endpoints[ref];

// IST: 2026-10-01T00:00+05:30 is 2026-09-30T18:30Z.
const EVENTS = ledger([
  grant('g0', 1_000, '2026-09-30T18:29:59.999Z'), // September in IST, though October in UTC
  grant('g1', 5_000, '2026-09-30T18:30:00.000Z'), // the first instant of October in IST
  grant('g2', 300, '2026-10-05T10:00:00.000Z', 'grant', '2026-10-20T00:00:00.000Z'),
  grant('g3', 20, '2026-10-06T10:00:00.000Z', 'correction'),
  charge('c1', 2, '2026-10-07T10:00:00.000Z'),
  charge('c2', 400, '2026-10-08T10:00:00.000Z'),
  { type: 'ReverseCharge', accountId: ACCOUNT, chargeId: 'c2', reason: 'job failed', at: '2026-10-09T10:00:00.000Z' },
  { type: 'ReserveCredits', accountId: ACCOUNT, reservationId: 'r1', amount: 100, requestRef: 'req-r1', at: '2026-10-10T10:00:00.000Z' },
  charge('c3', 2, '2026-10-25T10:00:00.000Z'), // after g2's expiry: its unspent 198 (100 more are held by r1) expire first
  charge('c4', 5, '2026-10-31T18:30:00.000Z'), // November in IST
]);
/** The balance row the service would hold now: the fold of every event. */
function storedOf(events: readonly RecordedLedgerEvent[]) {
  const state = fold(
    evolveLedger,
    initialLedger,
    events.map((e) => e.event),
  );
  return { available: state.available, reserved: state.reserved };
}

describe('IST month windows', () => {
  it('runs from the first instant of the month in IST to the first of the next', () => {
    assert.deepEqual([OCTOBER.from.toISOString(), OCTOBER.to.toISOString()], ['2026-09-30T18:30:00.000Z', '2026-10-31T18:30:00.000Z']);
    assert.equal(monthWindow('2026-12')!.to.toISOString(), '2026-12-31T18:30:00.000Z');
    assert.equal(monthOf(new Date('2026-09-30T18:30:00.000Z')), '2026-10');
    assert.equal(monthOf(new Date('2026-09-30T18:29:59.999Z')), '2026-09');
  });

  it('refuses what is no month', () => {
    for (const bad of ['2026-13', '2026-1', '26-10', '2026-10-01', '']) assert.equal(monthWindow(bad), null, bad);
  });
});

describe('rupees', () => {
  it('prints integer credits as rupees and paise, in Indian grouping', () => {
    assert.equal(rupees(0), 'Rs 0.00');
    assert.equal(rupees(1), 'Rs 0.10');
    assert.equal(rupees(12_345), 'Rs 1,234.50');
    assert.equal(rupees(123_456_789), 'Rs 1,23,45,678.90');
    assert.equal(rupees(-25), '-Rs 2.50');
  });
});

describe('closing a month', () => {
  const { close, differences } = closeAccount(ACCOUNT, EVENTS, OCTOBER, storedOf(EVENTS), endpointOf);

  it('balances: opening + movements = closing, and the ledger matches the stored balance', () => {
    assert.deepEqual(differences, []);
  });

  it('counts each movement in its IST month', () => {
    assert.deepEqual(close.opening, { available: 1_000, reserved: 0, total: 1_000 });
    assert.equal(close.purchases, 5_000);
    assert.equal(close.grants, 300);
    assert.equal(close.corrections, 20);
    assert.deepEqual(close.consumption, { 'GET /cases/:id': 4, 'POST /search/cases': 400 });
    assert.equal(close.consumed, 404);
    assert.equal(close.refunds, 400);
    assert.equal(close.expiries, 198);
    // 1000 + 5000 + 300 + 20 - 404 + 400 - 198; the 100 r1 holds is still the account's.
    assert.deepEqual(close.closing, { available: 6_018, reserved: 100, total: 6_118 });
  });

  it('lists the month’s credits with their payment references', () => {
    assert.deepEqual(
      close.credits.map((c) => [c.grantId, c.source, c.amount, c.paymentReference]),
      [
        ['g1', 'purchase', 5_000, 'PAY-g1'],
        ['g2', 'grant', 300, 'PAY-g2'],
        ['g3', 'correction', 20, 'PAY-g3'],
      ],
    );
  });

  it('puts a charge with no audited endpoint under unattributed', () => {
    const { close: blind } = closeAccount(ACCOUNT, EVENTS, OCTOBER, storedOf(EVENTS), () => undefined);
    assert.deepEqual(blind.consumption, { [UNATTRIBUTED]: 404 });
  });

  it('sums accounts into the total', () => {
    const other = ledger([grant('h1', 70, '2026-10-02T00:00:00.000Z')]).map((e) => ({
      ...e,
      event: { ...e.event, data: { ...e.event.data, accountId: 'usr_solo' } } as LedgerEvent,
    }));
    const second = closeAccount('usr_solo', other, OCTOBER, storedOf(other), endpointOf);
    assert.deepEqual(second.differences, []);
    const month = closeTotal(OCTOBER, [close, second.close], []);
    assert.equal(month.total.purchases, 5_070);
    assert.deepEqual(month.total.closing, { available: 6_088, reserved: 100, total: 6_188 });
    assert.deepEqual(month.total.consumption, { 'GET /cases/:id': 4, 'POST /search/cases': 400 });
  });
});

describe('a close that does not balance', () => {
  const stored = storedOf(EVENTS);

  it('names the account when an event was edited after it was recorded', () => {
    const tampered = EVENTS.map((e) =>
      e.streamPosition === 5 ? { ...e, event: { ...e.event, data: { ...e.event.data, amount: 1 } } as LedgerEvent } : e,
    );
    assert.equal(EVENTS[4]!.event.type, 'CreditsCharged');
    const { differences } = closeAccount(ACCOUNT, tampered, OCTOBER, stored, endpointOf);
    assert.deepEqual(differences, [
      { kind: 'stored-balance-mismatch', accountId: ACCOUNT, ledger: { available: stored.available + 1, reserved: 100 }, stored },
    ]);
  });

  it('names the missing position when an event was deleted', () => {
    const deleted = EVENTS.filter((e) => e.streamPosition !== 6);
    const kinds = closeAccount(ACCOUNT, deleted, OCTOBER, stored, endpointOf).differences.map((d) => d.kind);
    assert.deepEqual(kinds, ['stream-gap', 'stored-balance-mismatch']);
  });

  it('reports an event naming another account, a balance below zero and a ledger without a balance row', () => {
    const foreign = EVENTS.map((e) =>
      e.streamPosition === 1 ? { ...e, event: { ...e.event, data: { ...e.event.data, accountId: 'usr_other' } } as LedgerEvent } : e,
    );
    assert.deepEqual(closeAccount(ACCOUNT, foreign, OCTOBER, stored, endpointOf).differences, [
      { kind: 'event-of-another-account', accountId: ACCOUNT, streamPosition: 1, eventAccountId: 'usr_other' },
    ]);
    const overdrawn = EVENTS.slice(4, 5).map((e) => ({ ...e, streamPosition: 1 }));
    const kinds = closeAccount(ACCOUNT, overdrawn, OCTOBER, null, endpointOf).differences.map((d) => d.kind);
    assert.deepEqual(kinds, ['negative-balance', 'stored-balance-mismatch']);
  });

  it('reports a balance row with no ledger behind it', () => {
    assert.deepEqual(closeAccount(ACCOUNT, [], OCTOBER, { available: 50, reserved: 0 }, endpointOf).differences, [
      {
        kind: 'stored-balance-mismatch',
        accountId: ACCOUNT,
        ledger: { available: 0, reserved: 0 },
        stored: { available: 50, reserved: 0 },
      },
    ]);
  });
});

describe('reusing a payment reference', () => {
  const reuse = rule(decideReferenceReuse);
  const claimed = { accountId: ACCOUNT, amount: 5_000, grantId: 'grt_1' };

  it('is the same payment again when account and amount match: the original grant', () => {
    reuse.when('INV-1', claimed, { accountId: ACCOUNT, amount: 5_000 }).then({ tag: 'Replay', grantId: 'grt_1' });
  });

  it('is refused for another amount or another account', () => {
    reuse
      .when('INV-1', claimed, { accountId: ACCOUNT, amount: 5_001 })
      .then({ tag: 'PaymentReferenceInUse', paymentReference: 'INV-1', claimed });
    reuse
      .when('INV-1', claimed, { accountId: 'usr_x', amount: 5_000 })
      .then({ tag: 'PaymentReferenceInUse', paymentReference: 'INV-1', claimed });
  });
});
