/**
 * Properties of the credit ledger decider under any sequence of commands fast-check can
 * find (grant, charge, reserve, settle, release, reverse; ids from a small pool so they
 * collide; amounts that are often invalid): the balances are the sum of the events'
 * effects, counted here independently of the ledger module, and never negative; reserved
 * is the sum of open reservations; no charge id is charged twice; a reservation is never
 * captured beyond its amount; a charge is reversed at most once and for its own amount; a
 * refused command records nothing; and deciding on the one-entry slice the credits service
 * loads gives the same decision as deciding on the whole fold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  decideLedger,
  evolveLedger,
  initialLedger,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
} from '../../src/domain/credits/ledger.ts';
import { fold } from '../../src/domain/decider.ts';

const at = '2026-11-26T10:00:00.000Z';
const accountId = 'org_1';
const id = fc.constantFrom('a', 'b', 'c', 'd');
const amount = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 300 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -5, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2) },
);

const command: fc.Arbitrary<LedgerCommand> = fc.oneof(
  fc
    .record({ grantId: id, amount })
    .map((c): LedgerCommand => ({ type: 'GrantCredits', accountId, ...c, source: 'purchase', expiresAt: null, note: null, at })),
  fc
    .record({ chargeId: id, amount })
    .map((c): LedgerCommand => ({ type: 'ChargeCredits', accountId, ...c, requestRef: `req-${c.chargeId}`, at })),
  fc
    .record({ reservationId: id, amount })
    .map((c): LedgerCommand => ({ type: 'ReserveCredits', accountId, ...c, requestRef: `req-${c.reservationId}`, at })),
  fc.record({ reservationId: id, amount }).map((c): LedgerCommand => ({ type: 'SettleReservation', accountId, ...c, at })),
  id.map((reservationId): LedgerCommand => ({ type: 'ReleaseReservation', accountId, reservationId, at })),
  id.map((chargeId): LedgerCommand => ({ type: 'ReverseCharge', accountId, chargeId, reason: 'refund', at })),
);

/** The one reservation and charge a command names: what the credits service loads. */
function slice(state: LedgerState, c: LedgerCommand): LedgerState {
  const entry = 'reservationId' in c ? c.reservationId : 'chargeId' in c ? c.chargeId : null;
  const reservation = entry === null ? undefined : state.reservations[entry];
  const charge = entry === null ? undefined : state.charges[entry];
  return {
    available: state.available,
    reserved: state.reserved,
    reservations: entry !== null && reservation ? { [entry]: reservation } : {},
    charges: entry !== null && charge ? { [entry]: charge } : {},
  };
}

/** Runs the commands through decide and evolve, returning every event recorded and the final state. */
function play(commands: readonly LedgerCommand[]): { events: LedgerEvent[]; state: LedgerState } {
  const events: LedgerEvent[] = [];
  let state = initialLedger;
  for (const c of commands) {
    const decision = decideLedger(c, state);
    assert.deepEqual(decideLedger(c, slice(state, c)), decision, `slice decision differs for ${JSON.stringify(c)}`);
    if (!decision.ok) continue;
    events.push(...decision.events);
    state = fold(evolveLedger, state, decision.events);
    assert.ok(state.available >= 0 && state.reserved >= 0, `negative balance after ${JSON.stringify(c)}`);
  }
  return { events, state };
}

/** The balances as this test reads the events, without the ledger's own `balanceEffect`. */
function sumOfEffects(events: readonly LedgerEvent[]): { available: number; reserved: number } {
  let available = 0;
  let reserved = 0;
  for (const e of events) {
    if (e.type === 'CreditsGranted' || e.type === 'ChargeReversed') available += e.data.amount;
    else if (e.type === 'CreditsReserved') {
      available -= e.data.amount;
      reserved += e.data.amount;
    } else if (e.type === 'CreditsReleased') {
      available += e.data.amount;
      reserved -= e.data.amount;
    } else if (e.data.reservationId === null) available -= e.data.amount;
    else reserved -= e.data.amount;
  }
  return { available, reserved };
}

const sequences = fc.array(command, { maxLength: 60 });
const RUNS = 2_000;

describe('credit ledger decider properties', () => {
  it('keeps available and reserved equal to the sum of the events, never negative', () => {
    fc.assert(
      fc.property(sequences, (commands) => {
        const { events, state } = play(commands);
        assert.deepEqual({ available: state.available, reserved: state.reserved }, sumOfEffects(events));
        assert.ok(events.every((e) => Number.isSafeInteger(e.data.amount) && e.data.amount > 0));
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps reserved equal to the sum of open reservations, and never captures beyond one', () => {
    fc.assert(
      fc.property(sequences, (commands) => {
        const { events, state } = play(commands);
        const open = Object.values(state.reservations).filter((r) => r.status === 'open');
        assert.equal(
          state.reserved,
          open.reduce((n, r) => n + r.amount, 0),
        );
        for (const reserved of events.filter((e) => e.type === 'CreditsReserved')) {
          const { reservationId } = reserved.data;
          const captured = events
            .filter((e) => (e.type === 'CreditsCharged' || e.type === 'CreditsReleased') && e.data.reservationId === reservationId)
            .reduce((n, e) => n + e.data.amount, 0);
          const charged = events
            .filter((e) => e.type === 'CreditsCharged' && e.data.reservationId === reservationId)
            .reduce((n, e) => n + e.data.amount, 0);
          assert.ok(charged <= reserved.data.amount, `settled ${charged} above the ${reserved.data.amount} reserved`);
          const status = state.reservations[reservationId]?.status;
          assert.equal(captured, status === 'settled' ? reserved.data.amount : 0, `reservation ${reservationId} ${status ?? 'missing'}`);
        }
        assert.equal(
          new Set(events.filter((e) => e.type === 'CreditsReserved').map((e) => e.data.reservationId)).size,
          events.filter((e) => e.type === 'CreditsReserved').length,
        );
      }),
      { numRuns: RUNS },
    );
  });

  it('charges a charge id at most once, and reverses a charge at most once for its own amount', () => {
    fc.assert(
      fc.property(sequences, (commands) => {
        const { events } = play(commands);
        const charges = events.filter((e) => e.type === 'CreditsCharged');
        assert.equal(new Set(charges.map((e) => e.data.chargeId)).size, charges.length, 'a charge id charged twice');
        const reversals = events.filter((e) => e.type === 'ChargeReversed');
        assert.equal(new Set(reversals.map((e) => e.data.chargeId)).size, reversals.length, 'a charge reversed twice');
        for (const reversal of reversals) {
          const original = charges.find((c) => c.data.chargeId === reversal.data.chargeId);
          assert.equal(reversal.data.amount, original?.data.amount);
          assert.ok(events.indexOf(original!) < events.indexOf(reversal), 'reversed before it was charged');
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('records nothing for a refused command, and refuses every invalid amount it is given', () => {
    fc.assert(
      fc.property(sequences, command, (commands, last) => {
        const { state } = play(commands);
        const decision = decideLedger(last, state);
        if (!decision.ok) assert.ok(!('events' in decision));
        const invalid = 'amount' in last && !(Number.isSafeInteger(last.amount) && last.amount >= 0);
        const settledAlready = last.type === 'SettleReservation' && state.reservations[last.reservationId]?.status === 'settled';
        if (invalid && !settledAlready) assert.equal(decision.ok, false, `accepted amount ${String('amount' in last && last.amount)}`);
      }),
      { numRuns: RUNS },
    );
  });
});
