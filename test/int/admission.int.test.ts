/**
 * The admission unit through the real app and ledger: every refusal it makes answers with
 * the spec's exact status, code and body (402 required/balance/shortfall/topUpUrl, 403
 * with upgradeUrl, 429 with Retry-After, the fail-closed 503) and charges nothing; an
 * admitted call sets the credit headers; and a call whose work fails, earns nothing or
 * loses its charge to a concurrent spend is charged nothing and hands its cap slot back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryDistinctCounter } from '../../src/adapters/memory/distinct-counter.ts';
import type { Payer } from '../../src/application/admission/admission.ts';
import { ledgerStream } from '../../src/application/credits/credits-service.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { storeJudgmentDocuments } from '../../src/corpus/store-documents.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { limitsFor, type LimitOverrides, type Tier } from '../../src/domain/access/tiers.ts';
import { systemClock } from '../../src/ports/clock.ts';
import type { DistinctCounter } from '../../src/ports/distinct-counter.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, TEST_UPGRADE_URL, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';

type Json = Record<string, unknown>;
const operator = { kind: 'operator' } as const;
const CASE = 'sc-inabs-5861';
const TOP_UP_URL = 'https://billing.test/top-up';

/** The in-process counter, with a switch that makes it fail like a store that went away. */
class SwitchableCounter implements DistinctCounter {
  down = false;
  readonly #inner = new MemoryDistinctCounter(systemClock);
  add(set: string, member: string, ttlSeconds: number) {
    return this.down ? Promise.reject(new Error('store down')) : this.#inner.add(set, member, ttlSeconds);
  }
  remove(set: string, member: string) {
    return this.down ? Promise.reject(new Error('store down')) : this.#inner.remove(set, member);
  }
}

for (const factory of databases)
  describe(`admission on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: OpenedDatabase;
    let t: TestApp;
    const counter = new SwitchableCounter();
    let seq = 0;

    async function user(credits: number, limits: LimitOverrides = {}, tier: Tier = 'enterprise') {
      seq += 1;
      const registered = await t.application.accounts.registerUser(
        enterpriseUser(`admission-${seq}@lawfirm.example`, { tier, limitOverrides: limits }),
        operator,
      );
      assert.ok(registered.ok);
      const key = await t.application.accounts.createKey(registered.value.userId, 'k', operator);
      assert.ok(key.ok);
      if (credits > 0) await t.application.credits.grant(registered.value.userId, { amount: credits, source: 'grant' });
      const payer: Payer = { userId: registered.value.userId, organizationId: null, tier, limits: limitsFor(tier, limits) };
      return { key: key.value.fullKey, account: registered.value.userId, payer };
    }

    async function call(key: string, method: 'GET' | 'POST', path: string, body?: unknown) {
      const res = await t.app.request(`${BASE}${path}`, {
        method,
        headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { res, body: (await res.json()) as Json };
    }

    const balance = async (account: string) => (await t.application.credits.balance(account)).balance;

    /** The ledger's charges on one account. */
    async function chargesTo(account: string): Promise<number> {
      const rows = await database.db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'CreditsCharged')
        .where('streamId', '=', ledgerStream(account))
        .execute();
      return rows.length;
    }

    /** A coded refusal: the spec's shape, with nothing charged. */
    async function assertRefused(
      answer: { res: Response; body: Json },
      account: string,
      before: number,
      expected: { status: number; code: string },
    ) {
      assert.deepEqual([answer.res.status, answer.body.code], [expected.status, expected.code], JSON.stringify(answer.body));
      assert.equal(answer.body.success, false);
      assert.equal(typeof answer.body.message, 'string');
      assert.equal(typeof answer.body.requestId, 'string');
      assert.equal(answer.res.headers.get('x-credits-charged'), null);
      assert.equal(await balance(account), before);
      assert.equal(await chargesTo(account), 0);
    }

    before(async () => {
      database = await factory.open();
      t = buildTestApp({ db: database.db, clock: systemClock, distinctKeys: counter, entitledTiers: ['free', 'enterprise'] });
      await t.application.invalidator.poll();
      await ingestCorpus({ db: database.db, corpusDir, now: () => new Date(), sources: [scInAbsSource] });
      await storeJudgmentDocuments({ db: database.db, storage: t.documents, now: () => new Date() });
    });
    after(async () => database.close());

    describe('each refusal answers with the spec’s status, code and body, charging nothing', () => {
      it('TierNotAllowed: 403 API_TIER_NOT_ALLOWED with the upgradeUrl (and semantic search’s own 403 without one)', async () => {
        const free = await user(1_000, {}, 'free');
        const read = await call(free.key, 'GET', `/cases/${CASE}/analysis`);
        await assertRefused(read, free.account, 1_000, { status: 403, code: 'API_TIER_NOT_ALLOWED' });
        assert.equal(read.body.upgradeUrl, TEST_UPGRADE_URL);
        assert.match(String(read.body.message), /^AI analysis is not available on the Free tier/);
        const semantic = await call(free.key, 'POST', '/search/cases/semantic', { query: 'breach of contract' });
        await assertRefused(semantic, free.account, 1_000, { status: 403, code: 'SEMANTIC_NOT_ALLOWED' });
        assert.equal('upgradeUrl' in semantic.body, false);
      });

      it('InsufficientCredits: 402 with required, balance, shortfall and topUpUrl, and the cap untouched', async () => {
        const poor = await user(3, { pdfLinksPerMonth: 1 });
        const refused = await call(poor.key, 'GET', `/cases/${CASE}/pdf`);
        await assertRefused(refused, poor.account, 3, { status: 402, code: 'INSUFFICIENT_API_CREDITS' });
        assert.deepEqual(
          [refused.body.required, refused.body.balance, refused.body.shortfall, refused.body.topUpUrl],
          [5, 3, 2, TOP_UP_URL],
        );
        await t.application.credits.grant(poor.account, { amount: 2, source: 'grant' });
        assert.equal((await call(poor.key, 'GET', `/cases/${CASE}/pdf`)).res.status, 200, 'the one PDF link of the month is still there');
      });

      it('CapReached: 429 with Retry-After once the cap is used, the answered call charged with its headers', async () => {
        const capped = await user(100, { pdfLinksPerMonth: 1 });
        const first = await call(capped.key, 'GET', `/cases/${CASE}/pdf`);
        assert.equal(first.res.status, 200);
        assert.equal(first.res.headers.get('x-credits-charged'), '5');
        assert.equal(first.res.headers.get('x-credits-remaining'), '95');
        const second = await call(capped.key, 'GET', `/cases/${CASE}/pdf`);
        assert.deepEqual([second.res.status, second.body.code], [429, 'PDF_LIMIT_REACHED']);
        assert.ok(Number(second.res.headers.get('retry-after')) > 0);
        assert.equal(second.body.success, false);
        assert.equal(await balance(capped.account), 95);
        assert.equal(await chargesTo(capped.account), 1);
      });

      it('StandingUnavailable: the cap store down fails closed with 503 ACCOUNT_STANDING_UNAVAILABLE', async () => {
        const capped = await user(100, { distinctCaseDetailsPerDay: 10 });
        counter.down = true;
        try {
          const refused = await call(capped.key, 'GET', `/cases/${CASE}`);
          await assertRefused(refused, capped.account, 100, { status: 503, code: 'ACCOUNT_STANDING_UNAVAILABLE' });
          assert.match(String(refused.body.message), /daily distinct-case allowance could not be checked/);
        } finally {
          counter.down = false;
        }
      });
    });

    describe('a call that is not charged hands its cap slot back', () => {
      const pdfCall = (payer: Payer, callId: string) => ({
        payer,
        callId,
        endpoint: 'pdfLink' as const,
        cap: { cap: 'pdfLinksPerMonth' as const },
      });

      it('work that fails charges nothing and releases the slot', async () => {
        const u = await user(100, { pdfLinksPerMonth: 1 });
        await assert.rejects(
          t.research.admission.run({ ...pdfCall(u.payer, 'call-failing'), work: () => Promise.reject(new Error('storage went away')) }),
          /storage went away/,
        );
        assert.equal(await balance(u.account), 100);
        assert.equal(await chargesTo(u.account), 0);
        assert.equal((await call(u.key, 'GET', `/cases/${CASE}/pdf`)).res.status, 200);
      });

      it('work that earned nothing is answered with 0 charged and releases the slot', async () => {
        const u = await user(100, { pdfLinksPerMonth: 1 });
        const result = await t.research.admission.run({
          ...pdfCall(u.payer, 'call-unearned'),
          work: async () => 'masked',
          earned: () => null,
        });
        assert.deepEqual(result, { ok: true, value: 'masked', charged: 0 });
        assert.equal(await balance(u.account), 100);
        assert.equal((await call(u.key, 'GET', `/cases/${CASE}/pdf`)).res.status, 200);
      });

      it('a charge lost to a concurrent spend is refused as InsufficientCredits, charged nothing, and releases the slot', async () => {
        const u = await user(5, { pdfLinksPerMonth: 1 });
        const result = await t.research.admission.run({
          ...pdfCall(u.payer, 'call-outspent'),
          // Another call on the account spends the balance while this one works.
          work: async () => assert.ok((await t.application.credits.chargeNow(u.account, 3, 'concurrent-call')).ok),
        });
        assert.deepEqual(result, { ok: false, refusal: { tag: 'InsufficientCredits', required: 5, balance: 2 } });
        assert.equal(await balance(u.account), 2);
        await t.application.credits.grant(u.account, { amount: 3, source: 'grant' });
        assert.equal((await call(u.key, 'GET', `/cases/${CASE}/pdf`)).res.status, 200);
      });
    });

    describe('outcome-priced calls: two-phase tickets on the real ledger', () => {
      const HOUR = 3_600_000;
      const held = async (account: string) => (await t.application.credits.balance(account)).reserved;

      it('admit holds the domain’s worst case; settle charges the final price and releases the rest, once', async () => {
        const u = await user(500);
        const admitted = await t.application.tickets.admit({
          account: u.account,
          callId: 'call-screen-1',
          request: { endpoint: 'partyScreen' },
          holdForMs: HOUR,
        });
        assert.ok(admitted.ok);
        assert.deepEqual([admitted.balance, await held(u.account)], [320, 180]);
        const outcome = { endpoint: 'partyScreen', billedAs: 'genuine_no_match', adjudicated: false } as const;
        assert.deepEqual(await t.application.tickets.settle(admitted.ticket, outcome), { charged: 20, balance: 480 });
        // A retried settlement (a crashed caller's retry) records nothing more, and says what the call was charged.
        assert.deepEqual(await t.application.tickets.settle(admitted.ticket, outcome), { charged: 20, balance: 480 });
        await t.application.tickets.release(admitted.ticket);
        assert.deepEqual([await balance(u.account), await held(u.account), await chargesTo(u.account)], [480, 0, 1]);
      });

      it('a call admitted again under its call id (a retry that took it over) finds its hold: held once, charged once', async () => {
        const u = await user(500);
        const call = { account: u.account, callId: 'call-taken-over', request: { endpoint: 'partyScreen' }, holdForMs: HOUR } as const;
        const first = await t.application.tickets.admit(call);
        const again = await t.application.tickets.admit(call);
        assert.ok(first.ok && again.ok);
        assert.equal(again.ticket.reservationId, first.ticket.reservationId);
        assert.deepEqual([await balance(u.account), await held(u.account)], [320, 180]);
        const outcome = { endpoint: 'partyScreen', billedAs: 'genuine_no_match', adjudicated: false } as const;
        await t.application.tickets.settle(first.ticket, outcome);
        assert.deepEqual(await t.application.tickets.settle(again.ticket, outcome), { charged: 20, balance: 480 });
        assert.deepEqual([await balance(u.account), await held(u.account), await chargesTo(u.account)], [480, 0, 1]);
      });

      it('a balance below the worst case is refused with that worst case, and nothing is held', async () => {
        const u = await user(150);
        const refused = await t.application.tickets.admit({
          account: u.account,
          callId: 'call-batch-short',
          request: { endpoint: 'partyScreenBatch', items: 2 },
          holdForMs: HOUR,
        });
        assert.deepEqual(refused, { ok: false, refusal: { tag: 'InsufficientCredits', required: 200, balance: 150 } });
        assert.deepEqual([await balance(u.account), await held(u.account)], [150, 0]);
      });

      it('a tier without the feature is refused before anything is held', async () => {
        const u = await user(1_000, {}, 'free');
        const refused = await t.application.tickets.admit({
          account: u.account,
          callId: 'call-free-fetch',
          request: { endpoint: 'requestTimeline' },
          holdForMs: HOUR,
          entitled: { tier: 'free', feature: 'liveFetch' },
        });
        assert.deepEqual(refused, { ok: false, refusal: { tag: 'TierNotAllowed', feature: 'liveFetch' } });
        assert.equal(await held(u.account), 0);
      });

      it('a hold taken in the caller’s transaction rolls back with it', async () => {
        const u = await user(500);
        await assert.rejects(
          t.application.credits.transaction(async (trx) => {
            const admitted = await t.application.tickets.admit(
              { account: u.account, callId: 'call-rolled-back', request: { endpoint: 'analyzeConsolidated' }, holdForMs: HOUR },
              trx,
            );
            assert.ok(admitted.ok);
            throw new Error('the run it paid for could not be written');
          }),
          /could not be written/,
        );
        assert.deepEqual([await balance(u.account), await held(u.account)], [500, 0]);
      });

      it('a ticket settles only an outcome of its own endpoint, and release gives the whole hold back', async () => {
        const u = await user(100);
        const admitted = await t.application.tickets.admit({
          account: u.account,
          callId: 'call-fetch-1',
          request: { endpoint: 'requestTimeline' },
          holdForMs: HOUR,
        });
        assert.ok(admitted.ok);
        await assert.rejects(
          t.application.tickets.settle(admitted.ticket, { endpoint: 'analyzeConsolidated', cacheHit: false }),
          /cannot settle/,
        );
        assert.equal(await held(u.account), 50);
        await t.application.tickets.release(admitted.ticket);
        assert.deepEqual([await balance(u.account), await held(u.account), await chargesTo(u.account)], [100, 0, 0]);
      });
    });
  });
