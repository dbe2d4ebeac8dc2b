/**
 * Properties of the credit ledger decider under any sequence of commands fast-check can
 * find (grant, some expiring within hours, charge, reserve, settle, release, reverse; ids
 * from a small pool so they collide; amounts that are often invalid; a clock that moves
 * forward between commands): the balances are the sum of the events' effects, counted
 * here independently of the ledger module, and never negative; available is the sum of
 * the lots; reserved is the sum of open reservations; credits are drawn soonest expiry
 * first and never from a lot past its expiry; after any command no lot past its expiry
 * holds credits; an expiry takes exactly a lot's remainder, so nothing expires twice; no
 * charge id is charged twice; a reservation is never captured beyond its amount; a charge
 * is reversed at most once and for its own amount; a refund never lengthens a credit's
 * life (every lot is a grant and keeps its expiry); a refused command records nothing; and
 * deciding on the slice the credits service loads gives the same decision as deciding on
 * the whole fold.
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

const T0 = Date.parse('2026-11-26T10:00:00.000Z');
const HOUR = 3_600_000;
/** Commands are generated at hour 0; `play` stamps each with the moving clock. */
const at = new Date(T0).toISOString();
const accountId = 'org_1';
const id = fc.constantFrom('a', 'b', 'c', 'd');
const amount = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 300 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -5, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2) },
);

/** Hours after the grant's own time at which it expires, or never (null). */
const expiresIn = fc.option(fc.integer({ min: -1, max: 4 }), { nil: null, freq: 4 });

/** A grant's expiry is relative to when it is made; `play` resolves it against the clock. */
type Generated = LedgerCommand | { type: 'Grant'; grantId: string; amount: number; expiresIn: number | null };

const command: fc.Arbitrary<Generated> = fc.oneof(
  fc.record({ grantId: id, amount, expiresIn }).map((c): Generated => ({ type: 'Grant', ...c })),
  id.map((grantId): Generated => ({ type: 'Grant', grantId: `${grantId}-never`, amount: 100, expiresIn: null })),
  fc
    .record({ grantId: id, amount: fc.integer({ min: 1, max: 300 }), expiresIn: fc.integer({ min: 1, max: 2 }) })
    .map((c): Generated => ({ type: 'Grant', ...c, grantId: `${c.grantId}-soon` })),
  fc
    .record({ chargeId: id, amount })
    .map((c): LedgerCommand => ({ type: 'ChargeCredits', accountId, ...c, requestRef: `req-${c.chargeId}`, at })),
  fc
    .record({ reservationId: id, amount })
    .map((c): LedgerCommand => ({ type: 'ReserveCredits', accountId, ...c, requestRef: `req-${c.reservationId}`, at })),
  fc.record({ reservationId: id, amount }).map((c): LedgerCommand => ({ type: 'SettleReservation', accountId, ...c, at })),
  id.map((reservationId): LedgerCommand => ({ type: 'ReleaseReservation', accountId, reservationId, at })),
  id.map((chargeId): LedgerCommand => ({ type: 'ReverseCharge', accountId, chargeId, reason: 'refund', at })),
  fc.constant<LedgerCommand>({ type: 'ExpireCredits', accountId, at }),
);

/** The command at clock time `now`. */
function stamp(c: Generated, now: number): LedgerCommand {
  const when = new Date(now).toISOString();
  if (c.type !== 'Grant') return { ...c, at: when };
  const expiresAt = c.expiresIn === null ? null : new Date(now + c.expiresIn * HOUR).toISOString();
  return { type: 'GrantCredits', accountId, grantId: c.grantId, amount: c.amount, source: 'purchase', expiresAt, note: null, at: when };
}

/** What the credits service loads: the lots holding credits, and the lot, reservation and charge a command names. */
function slice(state: LedgerState, c: LedgerCommand): LedgerState {
  const entry = 'reservationId' in c ? c.reservationId : 'chargeId' in c ? c.chargeId : 'grantId' in c ? c.grantId : null;
  const reservation = entry === null ? undefined : state.reservations[entry];
  const charge = entry === null ? undefined : state.charges[entry];
  return {
    available: state.available,
    reserved: state.reserved,
    lots: Object.fromEntries(Object.entries(state.lots).filter(([grantId, lot]) => lot.remaining > 0 || grantId === entry)),
    reservations: entry !== null && reservation ? { [entry]: reservation } : {},
    charges: entry !== null && charge ? { [entry]: charge } : {},
  };
}

/** Whether expiry `a` comes before `b` (never is last), read here without the ledger's own ordering. */
const expiresSooner = (a: string | null, b: string | null): boolean => a !== null && (b === null || Date.parse(a) < Date.parse(b));

/** Checks one recorded event against the state just before it: lots drawn in order and live, expiries exact. */
function checkEvent(before: LedgerState, after: LedgerState, event: LedgerEvent): void {
  const { at: now } = event.data;
  const debit =
    event.type === 'CreditsReserved' || (event.type === 'CreditsCharged' && event.data.reservationId === null)
      ? (event.data.lots ?? [])
      : [];
  for (const draw of debit) {
    assert.ok(draw.expiresAt === null || Date.parse(draw.expiresAt) > Date.parse(now), `spent expired lot ${draw.grantId} at ${now}`);
    for (const [grantId, lot] of Object.entries(after.lots)) {
      if (grantId === draw.grantId || lot.remaining === 0) continue;
      assert.ok(!expiresSooner(lot.expiresAt, draw.expiresAt), `drew ${draw.grantId} while ${grantId} expires sooner`);
    }
  }
  if (event.type === 'CreditsExpired') {
    assert.equal(before.lots[event.data.grantId]?.remaining, event.data.amount, `expiry of ${event.data.grantId} is not its remainder`);
    assert.ok(Date.parse(event.data.expiresAt) <= Date.parse(now), 'expired early');
  }
  for (const [grantId, lot] of Object.entries(after.lots)) assert.ok(lot.remaining >= 0, `lot ${grantId} negative`);
}

/** Runs the commands through decide and evolve on a clock moving by `steps` minutes, returning every event and the final state. */
function play(
  generated: readonly Generated[],
  steps: readonly number[] = [],
): { events: LedgerEvent[]; state: LedgerState; commands: LedgerCommand[]; now: number } {
  const events: LedgerEvent[] = [];
  const commands: LedgerCommand[] = [];
  let state = initialLedger;
  let now = T0;
  for (const [i, g] of generated.entries()) {
    now += (steps[i] ?? 0) * 60_000;
    const c = stamp(g, now);
    commands.push(c);
    const decision = decideLedger(c, state);
    assert.deepEqual(decideLedger(c, slice(state, c)), decision, `slice decision differs for ${JSON.stringify(c)}`);
    if (!decision.ok) continue;
    events.push(...decision.events);
    for (const event of decision.events) {
      const next = evolveLedger(state, event);
      checkEvent(state, next, event);
      state = next;
    }
    assert.ok(state.available >= 0 && state.reserved >= 0, `negative balance after ${JSON.stringify(c)}`);
    const lots = Object.entries(state.lots);
    assert.equal(
      lots.reduce((n, [, lot]) => n + lot.remaining, 0),
      state.available,
      'available is not the sum of the lots',
    );
    for (const [grantId, lot] of lots) {
      const due = lot.expiresAt !== null && Date.parse(lot.expiresAt) <= now;
      assert.ok(!(due && lot.remaining > 0), `lot ${grantId} past its expiry still holds ${String(lot.remaining)}`);
    }
  }
  return { events, state, commands, now };
}

/** The balances as this test reads the events, without the ledger's own `balanceEffect`. */
function sumOfEffects(events: readonly LedgerEvent[]): { available: number; reserved: number } {
  let available = 0;
  let reserved = 0;
  for (const e of events) {
    if (e.type === 'CreditsGranted' || e.type === 'ChargeReversed') available += e.data.amount;
    else if (e.type === 'CreditsExpired') available -= e.data.amount;
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

const sequences = fc.array(command, { maxLength: 60, size: 'large' });
/** Minutes the clock moves before each command: often not at all, sometimes hours. */
const clockSteps = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 90 })), { minLength: 60, maxLength: 60 });
const RUNS = 2_000;

describe('credit ledger decider properties', () => {
  it('keeps available and reserved equal to the sum of the events, never negative, on a moving clock', () => {
    fc.assert(
      fc.property(sequences, clockSteps, (commands, steps) => {
        const { events, state } = play(commands, steps);
        assert.deepEqual({ available: state.available, reserved: state.reserved }, sumOfEffects(events));
        assert.ok(events.every((e) => Number.isSafeInteger(e.data.amount) && e.data.amount > 0));
      }),
      { numRuns: RUNS },
    );
  });

  it('keeps reserved equal to the sum of open reservations and their held lots, and never captures beyond one', () => {
    fc.assert(
      fc.property(sequences, clockSteps, (commands, steps) => {
        const { events, state } = play(commands, steps);
        const held = Object.values(state.reservations).reduce((n, r) => n + r.held.reduce((m, d) => m + d.amount, 0), 0);
        assert.equal(state.reserved, held, 'reserved is not the sum of the held lots');
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
      fc.property(sequences, clockSteps, (commands, steps) => {
        const { events } = play(commands, steps);
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

  it('expires each lot once per credit: expiries never exceed what a lot received less what it gave', () => {
    fc.assert(
      fc.property(sequences, clockSteps, (commands, steps) => {
        const { events, state } = play(commands, steps);
        // Per lot, counted from the events alone: in (grants, releases, refunds) less out (holds, charges, expiries).
        const net = new Map<string, number>();
        const move = (grantId: string, amount: number) => net.set(grantId, (net.get(grantId) ?? 0) + amount);
        for (const e of events) {
          if (e.type === 'CreditsGranted') move(e.data.grantId, e.data.amount);
          else if (e.type === 'CreditsExpired') move(e.data.grantId, -e.data.amount);
          else if (e.type === 'CreditsReleased' || e.type === 'ChargeReversed')
            for (const d of e.data.lots ?? []) move(d.grantId, d.amount);
          else if (e.type === 'CreditsReserved' || e.data.reservationId === null)
            for (const d of e.data.lots ?? []) move(d.grantId, -d.amount);
        }
        for (const [grantId, amount] of net) {
          assert.ok(amount >= 0, `lot ${grantId} gave out more than it received`);
          assert.equal(state.lots[grantId]?.remaining, amount, `lot ${grantId} disagrees with its events`);
        }
        const expiredCredits = events.filter((e) => e.type === 'CreditsExpired').reduce((n, e) => n + e.data.amount, 0);
        const granted = events.filter((e) => e.type === 'CreditsGranted').reduce((n, e) => n + e.data.amount, 0);
        assert.ok(expiredCredits <= granted, 'more expired than was ever granted');
      }),
      { numRuns: RUNS },
    );
  });

  it('never lengthens the life of a credit: every lot is a grant and keeps its expiry, refunds included', () => {
    fc.assert(
      fc.property(sequences, clockSteps, (commands, steps) => {
        const { events, state } = play(commands, steps);
        const grants = new Map<string, string | null>();
        for (const e of events) if (e.type === 'CreditsGranted') grants.set(e.data.grantId, e.data.expiresAt);
        for (const e of events) {
          if (e.type === 'CreditsGranted' || e.type === 'CreditsExpired' || !e.data.lots) continue;
          for (const d of e.data.lots) assert.equal(d.expiresAt, grants.get(d.grantId), `${e.type} moved ${d.grantId} with another expiry`);
        }
        for (const [grantId, lot] of Object.entries(state.lots)) {
          assert.ok(grants.has(grantId), `lot ${grantId} was never granted`);
          assert.equal(lot.expiresAt, grants.get(grantId), `lot ${grantId} changed its expiry`);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('records nothing for a refused command, and refuses every invalid amount it is given', () => {
    fc.assert(
      fc.property(sequences, command, (commands, generated) => {
        const { state, now } = play(commands);
        const last = stamp(generated, now);
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
