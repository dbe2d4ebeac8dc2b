/** The pure admission rules: tier entitlement, the balance check, cap refusals and what an outcome earns. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  affordability,
  capRefusal,
  creditRefusal,
  earnedCharge,
  entitlement,
  searchPageEarns,
  type Feature,
} from '../../src/application/admission/decision.ts';
import { TIERS } from '../../src/domain/access/tiers.ts';

const FEATURES: readonly Feature[] = ['semanticSearch', 'aiAnalysis', 'liveFetch', 'adjudication', 'batchScreening'];

describe('entitlement', () => {
  it('refuses every gated feature on the Free tier, naming it', () => {
    for (const feature of FEATURES) assert.deepEqual(entitlement('free', feature), { tag: 'TierNotAllowed', feature });
  });

  it('admits every gated feature on the paid tiers', () => {
    for (const tier of TIERS.filter((t) => t !== 'free')) {
      for (const feature of FEATURES) assert.equal(entitlement(tier, feature), null, `${tier} ${feature}`);
    }
  });

  it('admits a call that needs no feature on any tier', () => {
    for (const tier of TIERS) assert.equal(entitlement(tier, undefined), null);
  });
});

describe('affordability', () => {
  it('admits a balance equal to or above the price', () => {
    assert.equal(affordability(5, 5), null);
    assert.equal(affordability(5, 6), null);
  });

  it('refuses a balance below the price with what it needs and what it holds', () => {
    assert.deepEqual(affordability(5, 4), { tag: 'InsufficientCredits', required: 5, balance: 4 });
    assert.deepEqual(affordability(1, 0), { tag: 'InsufficientCredits', required: 1, balance: 0 });
  });
});

describe('cap refusals', () => {
  it('a reached cap carries its name and when to retry', () => {
    assert.deepEqual(capRefusal('pdfLinksPerMonth', { admitted: false, refusal: 'CapReached', retryAfterSeconds: 60 }), {
      tag: 'CapReached',
      cap: 'pdfLinksPerMonth',
      retryAfterSeconds: 60,
    });
  });

  it('a cap store that cannot answer fails closed as StandingUnavailable', () => {
    const cause = new Error('redis down');
    assert.deepEqual(capRefusal('distinctCasesPerDay', { admitted: false, refusal: 'StoreUnavailable', cause }), {
      tag: 'StandingUnavailable',
      cap: 'distinctCasesPerDay',
      cause,
    });
  });
});

describe('what an outcome earns', () => {
  it('charges the endpoint price, never more, and nothing when nothing was earned', () => {
    assert.equal(earnedCharge('caseDetail', 'caseDetail'), 1);
    assert.equal(earnedCharge('semanticSearch', 'keywordSearch'), 5);
    assert.equal(earnedCharge('keywordSearch', 'semanticSearch'), 5);
    assert.equal(earnedCharge('pdfLink', null), null);
  });

  it('a search page masked by a degraded restricted-record check earns nothing', () => {
    assert.equal(searchPageEarns({ restrictedCheckDegraded: true }, 'keywordSearch'), null);
    assert.equal(searchPageEarns({ restrictedCheckDegraded: false }, 'semanticSearch'), 'semanticSearch');
  });
});

describe('credit refusals', () => {
  it('a short balance from the ledger is the caller’s refusal, with what it needs and what it holds', () => {
    assert.deepEqual(creditRefusal({ tag: 'InsufficientCredits', required: 180, balance: 40 }, 'a reservation'), {
      tag: 'InsufficientCredits',
      required: 180,
      balance: 40,
    });
  });

  it('any other ledger refusal is a bug, thrown rather than shown to the caller as a refusal', () => {
    assert.throws(
      () => creditRefusal({ tag: 'ReservationNotFound', reservationId: 'rsv_1' }, 'a settlement'),
      /a settlement refused by the ledger: ReservationNotFound/,
    );
    assert.throws(() => creditRefusal({ tag: 'UserNotFound' }, 'a charge'), /UserNotFound/);
  });
});
