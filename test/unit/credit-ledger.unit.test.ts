/**
 * The credit ledger decider: given events, when a command, then events or a tagged error;
 * and a property run over thousands of seeded random command sequences checking that the
 * balance is the sum of the events and never negative, reservations are never captured
 * beyond their amount and a charge is never reversed twice. Also the price table.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  balanceEffect,
  decideLedger,
  evolveLedger,
  initialLedger,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
} from '../../src/domain/credits/ledger.ts';
import { finalPrice, fixedPrice, priceList, worstCase } from '../../src/domain/credits/prices.ts';
import { fold } from '../../src/domain/decider.ts';
import { spec } from '../support/decider-spec.ts';
import { prng } from '../support/prng.ts';

const at = '2026-11-26T10:00:00.000Z';
const acc = 'org_1';
const granted = (amount: number): LedgerEvent => ({
  type: 'CreditsGranted',
  data: { accountId: acc, grantId: `g${amount}`, amount, source: 'purchase', expiresAt: null, note: null, at },
});
/** Legacy-shaped: no `lots`, so evolve draws them by the spending rule. */
const reserved = (reservationId: string, amount: number): LedgerEvent => ({
  type: 'CreditsReserved',
  data: { accountId: acc, reservationId, amount, requestRef: `req-${reservationId}`, at },
});
const lot = (grantId: string, amount: number, expiresAt: string | null = null) => ({ grantId, amount, expiresAt });

function given(...events: LedgerEvent[]): LedgerState {
  return fold(evolveLedger, initialLedger, events);
}

const ledger = spec({ decide: decideLedger, evolve: evolveLedger, initialState: initialLedger });

describe('credit ledger decider', () => {
  it('grants a positive integer amount, and refuses zero, negative and fractional ones', () => {
    const grant = (amount: number): LedgerCommand => ({
      type: 'GrantCredits',
      accountId: acc,
      grantId: 'g1',
      amount,
      source: 'grant',
      expiresAt: '2027-01-01T00:00:00.000Z',
      note: 'welcome',
      at,
    });
    ledger
      .given([])
      .when(grant(500))
      .then([
        {
          type: 'CreditsGranted',
          data: { accountId: acc, grantId: 'g1', amount: 500, source: 'grant', expiresAt: '2027-01-01T00:00:00.000Z', note: 'welcome', at },
        },
      ]);
    for (const amount of [0, -5, 1.5, Number.NaN]) {
      ledger.given([]).when(grant(amount)).thenRefuses({ tag: 'InvalidAmount', amount });
    }
  });

  it('refuses a reservation the balance does not cover, with required and balance, recording nothing', () => {
    ledger
      .given([granted(150)])
      .when({ type: 'ReserveCredits', accountId: acc, reservationId: 'r1', amount: 180, requestRef: 'req-1', at })
      .thenRefuses({ tag: 'InsufficientCredits', required: 180, balance: 150 });
  });

  it('settles a reservation: charges the final price and releases the rest in one decision', () => {
    const history = [granted(200), reserved('r1', 120)];
    const state = given(...history);
    assert.deepEqual([state.available, state.reserved], [80, 120]);
    const settle: LedgerCommand = { type: 'SettleReservation', accountId: acc, reservationId: 'r1', amount: 100, at };
    ledger
      .given(history)
      .when(settle)
      .then([
        {
          type: 'CreditsCharged',
          data: { accountId: acc, chargeId: 'r1', reservationId: 'r1', amount: 100, requestRef: 'req-r1', at, lots: [lot('g200', 100)] },
        },
        { type: 'CreditsReleased', data: { accountId: acc, reservationId: 'r1', amount: 20, at, lots: [lot('g200', 20)] } },
      ]);
    const after = ledger.given(history).when(settle).thenState();
    assert.deepEqual([after.available, after.reserved], [100, 0]);
  });

  it('refuses to capture more than was reserved', () => {
    ledger
      .given([granted(500), reserved('r1', 100)])
      .when({ type: 'SettleReservation', accountId: acc, reservationId: 'r1', amount: 101, at })
      .thenRefuses({ tag: 'ChargeExceedsReservation', reservationId: 'r1', reserved: 100, amount: 101 });
  });

  it('records nothing when a settled reservation is settled or released again', () => {
    const settled = ledger.given([
      granted(500),
      reserved('r1', 100),
      { type: 'CreditsReleased', data: { accountId: acc, reservationId: 'r1', amount: 100, at } },
    ]);
    settled.when({ type: 'SettleReservation', accountId: acc, reservationId: 'r1', amount: 50, at }).thenNothing();
    settled.when({ type: 'ReleaseReservation', accountId: acc, reservationId: 'r1', at }).thenNothing();
  });

  it('releases a whole reservation explicitly', () => {
    ledger
      .given([granted(50), reserved('r1', 20)])
      .when({ type: 'ReleaseReservation', accountId: acc, reservationId: 'r1', at })
      .then([{ type: 'CreditsReleased', data: { accountId: acc, reservationId: 'r1', amount: 20, at, lots: [lot('g50', 20)] } }]);
  });

  it('charges a fixed price once per charge id', () => {
    const charge: LedgerCommand = { type: 'ChargeCredits', accountId: acc, chargeId: 'req-7', amount: 10, requestRef: 'req-7', at };
    const charged: LedgerEvent = {
      type: 'CreditsCharged',
      data: { accountId: acc, chargeId: 'req-7', reservationId: null, amount: 10, requestRef: 'req-7', at, lots: [lot('g10', 10)] },
    };
    ledger
      .given([granted(10)])
      .when(charge)
      .then([charged]);
    assert.equal(given(granted(10), charged).available, 0);
    ledger
      .given([granted(10), charged])
      .when(charge)
      .thenNothing();
    ledger
      .given([granted(10), charged])
      .when({ ...charge, chargeId: 'req-8' })
      .thenRefuses({ tag: 'InsufficientCredits', required: 10, balance: 0 });
  });

  it('keeps reservation ids and fixed-price charge ids apart (a settlement charges under the reservation id)', () => {
    const both = ledger.given([
      granted(100),
      reserved('x1', 10),
      { type: 'CreditsCharged', data: { accountId: acc, chargeId: 'x2', reservationId: null, amount: 5, requestRef: 'x2', at } },
    ]);
    both
      .when({ type: 'ChargeCredits', accountId: acc, chargeId: 'x1', amount: 5, requestRef: 'x1', at })
      .thenRefuses({ tag: 'IdInUse', id: 'x1' });
    both
      .when({ type: 'ReserveCredits', accountId: acc, reservationId: 'x2', amount: 5, requestRef: 'q', at })
      .thenRefuses({ tag: 'IdInUse', id: 'x2' });
  });

  it('reverses a charge in full, once', () => {
    const history: LedgerEvent[] = [
      granted(100),
      { type: 'CreditsCharged', data: { accountId: acc, chargeId: 'r1', reservationId: null, amount: 100, requestRef: 'x', at } },
    ];
    const reverse: LedgerCommand = { type: 'ReverseCharge', accountId: acc, chargeId: 'r1', reason: 'analysis job failed', at };
    const reversal: LedgerEvent = {
      type: 'ChargeReversed',
      data: { accountId: acc, chargeId: 'r1', amount: 100, reason: 'analysis job failed', at, lots: [lot('g100', 100)] },
    };
    ledger.given(history).when(reverse).then([reversal]);
    assert.equal(ledger.given(history).when(reverse).thenState().available, 100);
    ledger
      .given([...history, reversal])
      .when(reverse)
      .thenNothing();
    ledger
      .given([...history, reversal])
      .when({ ...reverse, chargeId: 'nope' })
      .thenRefuses({ tag: 'ChargeNotFound', chargeId: 'nope' });
  });
});

describe('credit ledger expiry', () => {
  const T = '2026-12-31T00:00:00.000Z';
  const before = '2026-12-30T12:00:00.000Z';
  const after = '2026-12-31T00:00:01.000Z';
  const grant = (grantId: string, amount: number, expiresAt: string | null): LedgerEvent => ({
    type: 'CreditsGranted',
    data: { accountId: acc, grantId, amount, source: 'purchase', expiresAt, note: null, at },
  });
  const expired = (grantId: string, amount: number, when: string, expiresAt = T): LedgerEvent => ({
    type: 'CreditsExpired',
    data: { accountId: acc, grantId, amount, expiresAt, at: when },
  });

  it('spends the soonest-expiring lot first, never-expiring last', () => {
    const history = [grant('never', 50, null), grant('late', 40, '2027-06-30T00:00:00.000Z'), grant('soon', 30, T)];
    ledger
      .given(history)
      .when({ type: 'ChargeCredits', accountId: acc, chargeId: 'c1', amount: 60, requestRef: 'c1', at: before })
      .then([
        {
          type: 'CreditsCharged',
          data: {
            accountId: acc,
            chargeId: 'c1',
            reservationId: null,
            amount: 60,
            requestRef: 'c1',
            at: before,
            lots: [lot('soon', 30, T), lot('late', 30, '2027-06-30T00:00:00.000Z')],
          },
        },
      ]);
  });

  it('expires a lot at its time, before deciding the command: expired credits cannot be spent', () => {
    const spent: LedgerEvent = {
      type: 'CreditsCharged',
      data: { accountId: acc, chargeId: 'c1', reservationId: null, amount: 30, requestRef: 'c1', at: before, lots: [lot('g100', 30, T)] },
    };
    const history = [grant('g100', 100, T), grant('g50', 50, null), spent];
    const charge: LedgerCommand = { type: 'ChargeCredits', accountId: acc, chargeId: 'c2', amount: 60, requestRef: 'c2', at: T };
    ledger.given(history).when(charge).thenRefuses({ tag: 'InsufficientCredits', required: 60, balance: 50 });
    const small = ledger
      .given(history)
      .when({ ...charge, amount: 20 })
      .thenEvents();
    assert.deepEqual(small[0], expired('g100', 70, T));
    assert.deepEqual(small[1]?.type === 'CreditsCharged' && small[1].data.lots, [lot('g50', 20)]);
    ledger
      .given(history)
      .when({ type: 'ExpireCredits', accountId: acc, at: after })
      .then([expired('g100', 70, after)]);
    assert.equal(given(...history, expired('g100', 70, after)).available, 50);
  });

  it('expires nothing twice: once a lot is recorded expired, a later command finds nothing due', () => {
    ledger
      .given([grant('g1', 10, T), expired('g1', 10, after)])
      .when({ type: 'ExpireCredits', accountId: acc, at: '2027-02-01T00:00:00.000Z' })
      .thenNothing();
  });

  it('keeps held credits through their expiry; a settlement charges the expiring part and the released rest expires at once', () => {
    const history = [
      grant('soon', 30, T),
      grant('never', 100, null),
      {
        type: 'CreditsReserved',
        data: {
          accountId: acc,
          reservationId: 'r1',
          amount: 80,
          requestRef: 'q1',
          at: before,
          lots: [lot('soon', 30, T), lot('never', 50)],
        },
      } satisfies LedgerEvent,
    ];
    // Settled after T: the 20 charged come from the expiring lot; its other 10 return to it and lapse.
    const settleAt = (when: string): LedgerCommand => ({
      type: 'SettleReservation',
      accountId: acc,
      reservationId: 'r1',
      amount: 20,
      at: when,
    });
    ledger
      .given(history)
      .when(settleAt(after))
      .then([
        {
          type: 'CreditsCharged',
          data: {
            accountId: acc,
            chargeId: 'r1',
            reservationId: 'r1',
            amount: 20,
            requestRef: 'q1',
            at: after,
            lots: [lot('soon', 20, T)],
          },
        },
        {
          type: 'CreditsReleased',
          data: { accountId: acc, reservationId: 'r1', amount: 60, at: after, lots: [lot('soon', 10, T), lot('never', 50)] },
        },
        expired('soon', 10, after),
      ]);
    const state = ledger.given(history).when(settleAt(after)).thenState();
    assert.deepEqual([state.available, state.reserved], [100, 0]);
    // Settled before T, the same rest returns to a live lot and stays spendable.
    const early = ledger.given(history).when(settleAt(before));
    assert.equal(early.thenEvents().filter((e) => e.type === 'CreditsExpired').length, 0);
    assert.equal(early.thenState().available, 110);
  });

  it('refunds a reversal to the lots it was drawn from with their expiry: a lapsed lot expires again at once, never made permanent', () => {
    const charged: LedgerEvent = {
      type: 'CreditsCharged',
      data: {
        accountId: acc,
        chargeId: 'c1',
        reservationId: null,
        amount: 50,
        requestRef: 'c1',
        at: before,
        lots: [lot('soon', 30, T), lot('never', 20)],
      },
    };
    const history = [grant('soon', 30, T), grant('never', 100, null), charged];
    const reverse = (when: string): LedgerCommand => ({
      type: 'ReverseCharge',
      accountId: acc,
      chargeId: 'c1',
      reason: 'job failed',
      at: when,
    });
    const refunded = (when: string): LedgerEvent => ({
      type: 'ChargeReversed',
      data: { accountId: acc, chargeId: 'c1', amount: 50, reason: 'job failed', at: when, lots: [lot('soon', 30, T), lot('never', 20)] },
    });
    // Refunded before T: both parts back in their own lots, the expiring part still expiring at T.
    ledger
      .given(history)
      .when(reverse(before))
      .then([refunded(before)]);
    const early = ledger.given(history).when(reverse(before)).thenState();
    assert.deepEqual(early.lots['soon'], { remaining: 30, expiresAt: T });
    ledger
      .given([...history, refunded(before)])
      .when({ type: 'ExpireCredits', accountId: acc, at: after })
      .then([expired('soon', 30, after)]);
    // Refunded after T: the part from the lapsed lot lands in it and expires in the same decision.
    ledger
      .given(history)
      .when(reverse(after))
      .then([refunded(after), expired('soon', 30, after)]);
    const late = ledger.given(history).when(reverse(after)).thenState();
    assert.equal(late.available, 100);
    assert.deepEqual(Object.keys(late.lots).sort(), ['never', 'soon']);
    assert.deepEqual(late.lots['soon'], { remaining: 0, expiresAt: T });
  });

  it('folds a refund recorded without lots back into the lots charged, so the next command expires a lapsed part', () => {
    const history: LedgerEvent[] = [
      grant('soon', 30, T),
      grant('never', 100, null),
      {
        type: 'CreditsCharged',
        data: { accountId: acc, chargeId: 'c1', reservationId: null, amount: 50, requestRef: 'c1', at: before },
      },
      { type: 'ChargeReversed', data: { accountId: acc, chargeId: 'c1', amount: 50, reason: 'job failed', at: after } },
    ];
    const state = given(...history);
    assert.deepEqual(state.lots['soon'], { remaining: 30, expiresAt: T });
    ledger
      .given(history)
      .when({ type: 'ExpireCredits', accountId: acc, at: after })
      .then([expired('soon', 30, after)]);
  });

  it('refuses a grant that expires at or before its own time, or at no parseable time', () => {
    const grantAt = (expiresAt: string): LedgerCommand => ({
      type: 'GrantCredits',
      accountId: acc,
      grantId: 'g1',
      amount: 10,
      source: 'grant',
      expiresAt,
      note: null,
      at: T,
    });
    for (const expiresAt of [T, before, 'next year']) {
      ledger.given([]).when(grantAt(expiresAt)).thenRefuses({ tag: 'InvalidExpiry', expiresAt, at: T });
    }
    ledger.given([]).when(grantAt(after)).thenEvents();
  });

  it('folds a stream recorded before lots (no lots on its events) to the lots it would have had', () => {
    const legacy: LedgerEvent[] = [
      grant('soon', 30, T),
      grant('never', 100, null),
      { type: 'CreditsCharged', data: { accountId: acc, chargeId: 'c1', reservationId: null, amount: 40, requestRef: 'c1', at: before } },
      reserved('r1', 50),
      { type: 'CreditsReleased', data: { accountId: acc, reservationId: 'r1', amount: 50, at: before } },
    ];
    const state = given(...legacy);
    assert.deepEqual(state.lots, { soon: { remaining: 0, expiresAt: T }, never: { remaining: 90, expiresAt: null } });
    assert.deepEqual(state.charges.c1?.lots, [lot('soon', 30, T), lot('never', 10)]);
    assert.equal(state.available, 90);
  });
});

function randomCommand(random: () => number, step: number): LedgerCommand {
  const int = (n: number) => Math.floor(random() * n);
  // Small id spaces, so commands often hit existing (and already settled) entries.
  const reservationId = `r${int(8)}`;
  const chargeId = random() < 0.5 ? reservationId : `c${int(8)}`;
  const amount = random() < 0.05 ? [0, -3, 2.5][int(3)]! : int(150);
  const base = { accountId: acc, at: `t${step}` };
  switch (int(6)) {
    case 0:
      return { ...base, type: 'GrantCredits', grantId: `g${step}`, amount, source: 'purchase', expiresAt: null, note: null };
    case 1:
      return { ...base, type: 'ReserveCredits', reservationId, amount, requestRef: `q${step}` };
    case 2:
      return { ...base, type: 'SettleReservation', reservationId, amount };
    case 3:
      return { ...base, type: 'ReleaseReservation', reservationId };
    case 4:
      return { ...base, type: 'ChargeCredits', chargeId, amount, requestRef: chargeId };
    default:
      return { ...base, type: 'ReverseCharge', chargeId, reason: 'refund' };
  }
}

describe('credit ledger properties', () => {
  it('keeps balance = sum of events, never negative, over 5,000 random sequences', () => {
    for (let seed = 1; seed <= 5_000; seed += 1) {
      const random = prng(seed);
      let state = initialLedger;
      const log: LedgerEvent[] = [];
      const captured = new Map<string, number>();
      const reservedAmount = new Map<string, number>();
      const reversals = new Map<string, number>();
      for (let step = 0; step < 40; step += 1) {
        const decision = decideLedger(randomCommand(random, step), state);
        if (!decision.ok) continue;
        for (const event of decision.events) {
          log.push(event);
          if (event.type === 'CreditsReserved') reservedAmount.set(event.data.reservationId, event.data.amount);
          if (event.type === 'CreditsCharged' && event.data.reservationId !== null) {
            const id = event.data.reservationId;
            captured.set(id, (captured.get(id) ?? 0) + event.data.amount);
          }
          if (event.type === 'CreditsReleased') {
            const id = event.data.reservationId;
            captured.set(id, (captured.get(id) ?? 0) + event.data.amount);
          }
          if (event.type === 'ChargeReversed') reversals.set(event.data.chargeId, (reversals.get(event.data.chargeId) ?? 0) + 1);
        }
        state = fold(evolveLedger, state, decision.events);
        const context = `seed ${seed}, step ${step}`;
        assert.ok(state.available >= 0 && state.reserved >= 0, `never negative (${context})`);
        const sums = log
          .map(balanceEffect)
          .reduce((a, b) => ({ available: a.available + b.available, reserved: a.reserved + b.reserved }), {
            available: 0,
            reserved: 0,
          });
        assert.deepEqual([state.available, state.reserved], [sums.available, sums.reserved], `balance = sum of events (${context})`);
        assert.deepEqual(state, fold(evolveLedger, initialLedger, log), `incremental state = fresh fold (${context})`);
        const open = Object.values(state.reservations).filter((r) => r.status === 'open');
        assert.equal(
          state.reserved,
          open.reduce((n, r) => n + r.amount, 0),
          `reserved = open reservations (${context})`,
        );
      }
      for (const [id, total] of captured)
        assert.ok(total <= (reservedAmount.get(id) ?? 0), `reservation ${id} over-captured (seed ${seed})`);
      for (const [id, count] of reversals) assert.equal(count, 1, `charge ${id} reversed twice (seed ${seed})`);
    }
  });

  it('decides the same from a slice holding only the named entry as from the full fold', () => {
    for (let seed = 1; seed <= 1_000; seed += 1) {
      const random = prng(seed * 7919);
      let state = initialLedger;
      for (let step = 0; step < 30; step += 1) {
        const command = randomCommand(random, step);
        const named =
          'reservationId' in command
            ? command.reservationId
            : 'chargeId' in command
              ? command.chargeId
              : 'grantId' in command
                ? command.grantId
                : undefined;
        const slice: LedgerState = {
          available: state.available,
          reserved: state.reserved,
          lots: Object.fromEntries(Object.entries(state.lots).filter(([id, l]) => l.remaining > 0 || id === named)),
          reservations: named && state.reservations[named] ? { [named]: state.reservations[named] } : {},
          charges: named && state.charges[named] ? { [named]: state.charges[named] } : {},
        };
        const decision = decideLedger(command, state);
        assert.deepEqual(decideLedger(command, slice), decision, `seed ${seed}, step ${step}`);
        if (decision.ok) state = fold(evolveLedger, state, decision.events);
      }
    }
  });
});

describe('price table', () => {
  it('prices outcomes as the spec says', () => {
    assert.equal(fixedPrice('semanticSearch'), 10);
    assert.equal(fixedPrice('caseDetail'), 1);
    assert.equal(fixedPrice('pdfLink'), 5);
    assert.equal(fixedPrice('keywordSearch'), 5);
    assert.equal(fixedPrice('usage'), 0);
    assert.equal(finalPrice({ endpoint: 'analyze', cacheHit: false, remoteFetched: true }), 120);
    assert.equal(finalPrice({ endpoint: 'analyze', cacheHit: true, remoteFetched: false }), 1);
    assert.equal(finalPrice({ endpoint: 'analyzeConsolidated', cacheHit: true }), 1);
    assert.equal(finalPrice({ endpoint: 'partyScreen', billedAs: 'genuine_no_match', adjudicated: true }), 100);
    assert.equal(finalPrice({ endpoint: 'partyScreen', billedAs: 'match', adjudicated: true }), 180);
    assert.equal(finalPrice({ endpoint: 'partyScreen', billedAs: 'match', adjudicated: false }), 100);
    // An inconclusive no match could not say "no": only an adjudication that ran is paid.
    assert.equal(finalPrice({ endpoint: 'partyScreen', billedAs: 'none', adjudicated: false }), 0);
    assert.equal(finalPrice({ endpoint: 'partyScreen', billedAs: 'none', adjudicated: true }), 80);
    assert.equal(finalPrice({ endpoint: 'partyScreenBatch', matchedItems: 2, noMatchItems: 3 }), 260);
    assert.equal(finalPrice({ endpoint: 'requestTimeline', liveFetchStarted: false }), 0);
  });

  it('reserves the worst case a request can reach', () => {
    assert.equal(worstCase({ endpoint: 'analyze', allowRemoteFetch: true }), 120);
    assert.equal(worstCase({ endpoint: 'analyze', allowRemoteFetch: false }), 100);
    // Rule 3 of POST /party/screen: match plus surcharge, whether or not adjudicate was asked for.
    assert.equal(worstCase({ endpoint: 'partyScreen' }), 180);
    assert.equal(worstCase({ endpoint: 'partyScreenBatch', items: 25 }), 2_500);
    assert.equal(worstCase({ endpoint: 'analyzeConsolidated' }), 400);
    assert.ok(priceList().some((p) => p.path === '/cases/:id/analyze' && p.price.includes('+20')));
  });
});
