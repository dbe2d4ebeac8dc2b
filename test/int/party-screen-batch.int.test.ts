/**
 * POST /party/screen/batch end to end through the real app on both databases, over the
 * real corpus slice with real party names, by the spec's six rules: per-item prices
 * against the ledger, the 100-per-item pre-flight (402), the Free tier refused, the
 * monthly allowance refusing the whole batch, a malformed item failing alone, clientRef
 * and index on every result, truncation at the distinct-names cap, the rate limit
 * counting the batch once, the 400s, idempotent replay and 409, partial and total search
 * failure, and the concurrency bound.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BATCH_CONCURRENCY } from '../../src/application/screening/litigation-checks.ts';
import type { PartySearchIndex } from '../../src/ports/search-index.ts';
import { TEST_UPGRADE_URL } from '../support/app.ts';
import { databases } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';
import {
  balanceOf,
  chargedTo,
  openScreeningWorld,
  post,
  realPartyNames,
  type Json,
  type ScreeningWorld,
} from '../support/screening-setup.ts';

const DESARDA = 'sc-19885-2000-19020209'; // PADMA v. HIRALAL MOTILAL DESARDA
const NO_SUCH_PARTY = 'Zorawar Quillfeather Vantablack';

interface ItemResult {
  index: number;
  clientRef: string | null;
  ok: boolean;
  data?: { summary: { verdict: string; billedAs: string }; matches: { caseId: string }[] };
  creditsCharged?: number;
  error?: { code: string; message: string; details?: string[] };
}

const results = (body: Json) => body.data as ItemResult[];
const meta = (body: Json) =>
  body.meta as Json & { creditsCharged: number; truncated: boolean; truncatedReason: string | null; completed: number };

for (const factory of databases)
  describe(`POST /party/screen/batch on ${factory.name}`, { timeout: 600_000 }, () => {
    let w: ScreeningWorld;

    const batch = (key: string, body: unknown, headers: Record<string, string> = {}) =>
      post(w.t, key, '/party/screen/batch', body, headers);
    const fresh = async (label: string, limits = {}, credits = 100_000) => {
      const u = await w.user(label, { limits, credits });
      return { ...u, account: u.userId };
    };

    before(async () => {
      w = await openScreeningWorld(factory);
    });
    after(async () => w.close());

    describe('the security matrix', () => {
      securityMatrix(
        {
          method: 'POST',
          path: '/party/screen/batch',
          body: { purpose: 'kyc', items: [{ name: 'Hiralal Motilal Desarda', entityType: 'person' }] },
          okStatus: 200,
          price: 100,
        },
        () => ({ app: w.t.app, fixture: w.fixture, appWithIdentityDown: w.down.app, balanceOf: (a) => balanceOf(w, a) }),
      );
    });

    it('screens every item, each with its index and clientRef, charging 100 per match and 20 per genuine no match', async () => {
      const u = await fresh('mixed');
      const { res, body } = await batch(u.key, {
        purpose: 'due_diligence',
        entityType: 'person',
        items: [
          { clientRef: 'a-1', name: 'Hiralal Motilal Desarda' },
          { clientRef: 'a-2', name: NO_SUCH_PARTY },
          { name: 'National Insurance Company Limited', entityType: 'company' },
        ],
      });
      assert.equal(res.status, 200, JSON.stringify(body).slice(0, 1000));
      const items = results(body);
      assert.deepEqual(
        items.map((r) => [r.index, r.clientRef, r.ok]),
        [
          [0, 'a-1', true],
          [1, 'a-2', true],
          [2, null, true],
        ],
      );
      assert.ok(items[0]?.data?.matches.some((m) => m.caseId === DESARDA));
      assert.equal(items[1]?.data?.summary.verdict, 'no_matches_found');
      assert.equal(items[2]?.data?.summary.verdict, 'match_found');
      assert.deepEqual(
        items.map((r) => r.creditsCharged),
        [100, 20, 100],
      );
      assert.equal(meta(body).creditsCharged, 220);
      assert.equal(res.headers.get('x-credits-charged'), '220');
      assert.equal(await chargedTo(w, u.account), 220);
      assert.deepEqual([meta(body).truncated, meta(body).truncatedReason, meta(body).completed], [false, null, 3]);
    });

    it('a malformed item fails alone: ok false with a VALIDATION_ERROR, not charged', async () => {
      const u = await fresh('malformed');
      const { res, body } = await batch(u.key, {
        purpose: 'kyc',
        items: [
          { clientRef: 'good', name: 'Hiralal Motilal Desarda', entityType: 'person' },
          { clientRef: 'bad-pan', name: 'Hiralal Motilal Desarda', entityType: 'person', identifiers: { pan: 'ABMPA32111' } },
          { clientRef: 'no-type', name: 'Hiralal Motilal Desarda' },
          { clientRef: 'extra', name: 'Hiralal Motilal Desarda', entityType: 'person', nickname: 'H' },
          'not an object',
          {
            clientRef: 'two-courts',
            name: 'Hiralal Motilal Desarda',
            entityType: 'person',
            court: ['Supreme Court of India', 'Delhi High Court'],
          },
        ],
      });
      assert.equal(res.status, 200, JSON.stringify(body));
      const items = results(body);
      assert.deepEqual(
        items.map((r) => [r.index, r.clientRef, r.ok, r.error?.code ?? null]),
        [
          [0, 'good', true, null],
          [1, 'bad-pan', false, 'VALIDATION_ERROR'],
          [2, 'no-type', false, 'VALIDATION_ERROR'],
          [3, 'extra', false, 'VALIDATION_ERROR'],
          [4, null, false, 'VALIDATION_ERROR'],
          [5, 'two-courts', false, 'VALIDATION_ERROR'],
        ],
      );
      for (const r of items.slice(1)) assert.ok((r.error?.details?.length ?? 0) > 0, JSON.stringify(r));
      assert.ok(!JSON.stringify(body).includes('ABMPA32111'));
      assert.equal(meta(body).creditsCharged, 100);
      assert.equal(await chargedTo(w, u.account), 100);
    });

    it('400 for empty, more than 25 items, missing purpose, adjudicate true or an unknown field; nothing charged', async () => {
      const u = await fresh('bad-batch');
      const item = { name: 'Hiralal Motilal Desarda', entityType: 'person' };
      const bodies: [string, unknown][] = [
        ['empty', { purpose: 'kyc', items: [] }],
        ['26 items', { purpose: 'kyc', items: Array.from({ length: 26 }, () => item) }],
        ['missing purpose', { items: [item] }],
        ['adjudicate true', { purpose: 'kyc', adjudicate: true, items: [item] }],
        ['unknown field', { purpose: 'kyc', items: [item], priority: 'high' }],
        ['items not an array', { purpose: 'kyc', items: item }],
      ];
      for (const [label, body] of bodies) {
        const { res, body: answer } = await batch(u.key, body);
        assert.deepEqual([res.status, answer.code], [400, 'VALIDATION_ERROR'], label);
      }
      const ok = await batch(u.key, { purpose: 'kyc', adjudicate: false, items: Array.from({ length: 25 }, () => item) });
      assert.equal(ok.res.status, 200);
      assert.equal(meta(ok.body).creditsCharged, 2500);
      assert.equal(await chargedTo(w, u.account), 2500);
    });

    it('reserves 100 per item first: 402 when not covered, nothing charged', async () => {
      const u = await fresh('poor-batch', {}, 250);
      const items = [NO_SUCH_PARTY, 'Hiralal Motilal Desarda', 'Hakam Shah'].map((name) => ({ name, entityType: 'person' }));
      const { res, body } = await batch(u.key, { purpose: 'kyc', items });
      assert.equal(res.status, 402);
      assert.deepEqual([body.required, body.balance, body.shortfall], [300, 250, 50]);
      assert.equal(await balanceOf(w, u.account), 250);
      const fits = await batch(u.key, { purpose: 'kyc', items: items.slice(0, 2) });
      assert.equal(fits.res.status, 200);
      assert.equal(await balanceOf(w, u.account), 130);
    });

    it('the Free tier is refused before the body is read: 403 API_TIER_NOT_ALLOWED with an upgradeUrl', async () => {
      const free = await w.user('free-batch', { tier: 'free', credits: 1_000 });
      for (const body of [{ purpose: 'kyc', items: [{ name: 'Hakam Shah', entityType: 'person' }] }, { nonsense: true }]) {
        const { res, body: answer } = await post(w.open, free.key, '/party/screen/batch', body);
        assert.deepEqual([res.status, answer.code, answer.upgradeUrl], [403, 'API_TIER_NOT_ALLOWED', TEST_UPGRADE_URL]);
      }
      assert.equal(await balanceOf(w, free.userId), 1_000);
    });

    it('PARTY_SCREEN_LIMIT_REACHED refuses the whole batch when the monthly allowance is short; nothing charged', async () => {
      const u = await fresh('monthly-batch', { litigationChecksPerMonth: 2 });
      const items = ['Hiralal Motilal Desarda', 'Hakam Shah', NO_SUCH_PARTY].map((name) => ({ name, entityType: 'person' }));
      const refused = await batch(u.key, { purpose: 'kyc', items });
      assert.deepEqual([refused.res.status, refused.body.code], [403, 'PARTY_SCREEN_LIMIT_REACHED']);
      assert.equal(await chargedTo(w, u.account), 0);
      assert.equal((await batch(u.key, { purpose: 'kyc', items: items.slice(0, 2) })).res.status, 200);
      const used = await batch(u.key, { purpose: 'kyc', items: items.slice(2) });
      assert.deepEqual([used.res.status, used.body.code], [403, 'PARTY_SCREEN_LIMIT_REACHED']);
    });

    it('items past the distinct-names cap are left out and reported through meta.truncated; only completed items are charged', async () => {
      const names = await realPartyNames(w, 5);
      const u = await fresh('truncated', { distinctScreenedNamesPerDay: 3 });
      const { res, body } = await batch(u.key, {
        purpose: 'bgv',
        entityType: 'person',
        items: names.map((name, i) => ({ name, clientRef: `n${String(i)}` })),
      });
      assert.equal(res.status, 200, JSON.stringify(body));
      const items = results(body);
      assert.deepEqual(
        items.map((r) => [r.clientRef, r.ok, r.error?.code ?? null]),
        [
          ['n0', true, null],
          ['n1', true, null],
          ['n2', true, null],
          ['n3', false, 'DISTINCT_NAMES_LIMIT_REACHED'],
          ['n4', false, 'DISTINCT_NAMES_LIMIT_REACHED'],
        ],
      );
      assert.equal(meta(body).truncated, true);
      assert.match(meta(body).truncatedReason ?? '', /DISTINCT_NAMES_LIMIT_REACHED/);
      const charged = items.reduce((sum, r) => sum + (r.creditsCharged ?? 0), 0);
      assert.equal(meta(body).creditsCharged, charged);
      assert.equal(await chargedTo(w, u.account), charged);
      // A batch of only names screened today passes; one with only new names is refused whole.
      assert.equal((await batch(u.key, { purpose: 'bgv', entityType: 'person', items: [{ name: names[0]! }] })).res.status, 200);
      const refused = await batch(u.key, { purpose: 'bgv', entityType: 'person', items: [{ name: names[4]! }] });
      assert.deepEqual([refused.res.status, refused.body.code], [429, 'DISTINCT_NAMES_LIMIT_REACHED']);
      assert.ok(Number(refused.res.headers.get('retry-after')) > 0);
    });

    it('the rate limit counts a batch once, across all its items', async () => {
      const u = await fresh('rate-batch', { screeningRequestsPerMinute: 1 });
      w.clock.advanceSeconds(60 - (w.clock.now().getUTCSeconds() % 60));
      const items = ['Hiralal Motilal Desarda', 'Hakam Shah', NO_SUCH_PARTY].map((name) => ({ name, entityType: 'person' }));
      assert.equal((await batch(u.key, { purpose: 'kyc', items })).res.status, 200);
      const limited = await batch(u.key, { purpose: 'kyc', items: items.slice(0, 1) });
      assert.deepEqual([limited.res.status, limited.body.code], [429, 'RATE_LIMITED']);
      assert.ok(Number(limited.res.headers.get('retry-after')) > 0);
      w.clock.advanceSeconds(60);
    });

    it('replays a batch verbatim under its Idempotency-Key, charging once; another body is 409', async () => {
      const u = await fresh('idem-batch');
      const headers = { 'Idempotency-Key': 'batch-0001' };
      const body = { purpose: 'kyc', items: [{ name: 'Hiralal Motilal Desarda', entityType: 'person' }] };
      const first = await batch(u.key, body, headers);
      const again = await batch(u.key, body, headers);
      assert.equal(again.res.headers.get('idempotency-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.equal(await chargedTo(w, u.account), 100);
      const other = await batch(u.key, { ...body, purpose: 'bgv' }, headers);
      assert.deepEqual([other.res.status, other.body.code], [409, 'IDEMPOTENCY_KEY_REUSED']);
    });

    it('an item whose search fails is ok false and free; when every item fails, 502 and nothing charged', async () => {
      const failing: PartySearchIndex = {
        searchParties: (request) =>
          request.name.startsWith('Hakam') ? Promise.reject(new Error('shard down')) : w.index.searchParties(request),
      };
      const app = w.variant({ parties: failing });
      const u = await fresh('partial-batch');
      const { res, body } = await post(app, u.key, '/party/screen/batch', {
        purpose: 'kyc',
        entityType: 'person',
        items: [{ name: 'Hiralal Motilal Desarda' }, { name: 'Hakam Shah', clientRef: 'down' }],
      });
      assert.equal(res.status, 200);
      const items = results(body);
      assert.deepEqual(
        items.map((r) => [r.ok, r.error?.code ?? null]),
        [
          [true, null],
          [false, 'PARTY_SCREEN_SEARCH_DEGRADED'],
        ],
      );
      assert.equal(meta(body).creditsCharged, 100);
      assert.equal(await chargedTo(w, u.account), 100);
      const all = await post(app, u.key, '/party/screen/batch', { purpose: 'kyc', entityType: 'person', items: [{ name: 'Hakam Shah' }] });
      assert.deepEqual([all.res.status, all.body.code], [502, 'PARTY_SCREEN_SEARCH_DEGRADED']);
      assert.ok(Number(all.res.headers.get('retry-after')) > 0);
      assert.equal(await chargedTo(w, u.account), 100);
    });

    it(`runs items concurrently, never more than ${String(BATCH_CONCURRENCY)} at once`, async () => {
      let inFlight = 0;
      let peak = 0;
      const counting: PartySearchIndex = {
        searchParties: async (request) => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          try {
            await new Promise((resolve) => setTimeout(resolve, 20));
            return await w.index.searchParties(request);
          } finally {
            inFlight -= 1;
          }
        },
      };
      const app = w.variant({ parties: counting });
      const u = await fresh('concurrent');
      const names = await realPartyNames(w, 12);
      const { res } = await post(app, u.key, '/party/screen/batch', {
        purpose: 'kyc',
        entityType: 'person',
        items: names.map((name) => ({ name })),
      });
      assert.equal(res.status, 200);
      assert.ok(peak > 1, `items ran one at a time (peak ${String(peak)})`);
      assert.ok(peak <= BATCH_CONCURRENCY, `peak ${String(peak)}`);
    });
  });
