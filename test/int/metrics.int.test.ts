/**
 * GET /ops/metrics through the real app and ledger: a charged call moves the charge and
 * credit counters by its price and a refusal the counter of its code; requests are
 * labelled by route pattern, never by the path asked (no case id reaches a label); a charge
 * rolled back with its transaction is never counted; the projector lag gauge counts what a
 * projector has not read; and the endpoint answers only who it should, outside both
 * OpenAPI documents.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { storeJudgmentDocuments } from '../../src/corpus/store-documents.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { PRICES } from '../../src/domain/credits/prices.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { ProjectorRunner } from '../../src/projections/projector.ts';
import { projectorLag } from '../../src/projections/projector-lag.ts';
import { keyedUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, TEST_CLIENT_HEADER, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { hasSample, sampleValue } from '../support/prometheus-text.ts';
import { eventStoreOf } from '../../src/wiring.ts';

type Json = Record<string, unknown>;
const CASE = 'sc-inabs-5861';
const METRICS_TOKEN = 'metrics-token-of-some-length';

for (const factory of databases)
  describe(`metrics on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: OpenedDatabase;
    let t: TestApp;

    const scrape = async () => (await t.metrics.scrape()).body;
    const call = (key: string, path: string) => t.app.request(`${BASE}${path}`, { headers: { 'X-API-Key': key } });
    const charges = (text: string) => ({
      charges: sampleValue(text, 'court_records_charges_total'),
      credits: sampleValue(text, 'court_records_credits_charged_total'),
      refunded: sampleValue(text, 'court_records_credits_refunded_total'),
    });

    before(async () => {
      database = await factory.open();
      t = buildTestApp({ db: database.db, clock: systemClock });
      await ingestCorpus({ db: database.db, corpusDir, now: () => new Date(), sources: [scInAbsSource] });
      await storeJudgmentDocuments({ db: database.db, storage: t.documents, now: () => new Date() });
    });
    after(async () => database.close());

    it('a charged call moves the charge counter by one and the credits counter by its price', async () => {
      const payer = await keyedUser(t.application.accounts, 'metrics-charged');
      await t.application.credits.grant(payer.userId, { amount: 100, source: 'grant' });
      const before = charges(await scrape());
      const res = await call(payer.key, `/cases/${CASE}/pdf`);
      assert.equal(res.status, 200, await res.text());
      assert.equal(res.headers.get('x-credits-charged'), String(PRICES.pdfLink.credits));
      const moved = charges(await scrape());
      assert.deepEqual(
        [moved.charges - before.charges, moved.credits - before.credits, moved.refunded - before.refunded],
        [1, PRICES.pdfLink.credits, 0],
      );
    });

    it('a charge made in a transaction that rolls back is not counted; one that commits is, and so is its reversal', async () => {
      const payer = await keyedUser(t.application.accounts, 'metrics-rollback');
      await t.application.credits.grant(payer.userId, { amount: 100, source: 'grant' });
      const before = charges(await scrape());
      await assert.rejects(
        t.application.credits.transaction(async (trx) => {
          assert.ok((await t.application.credits.chargeNow(payer.userId, 7, 'metrics-rolled-back', trx)).ok);
          throw new Error('the work after the charge failed');
        }),
        /the work after the charge failed/,
      );
      assert.deepEqual(charges(await scrape()), before, 'a rolled-back charge moved the counters');
      assert.equal((await t.application.credits.balance(payer.userId)).balance, 100);

      const chargeId = await t.application.credits.transaction(async (trx) => {
        const charged = await t.application.credits.chargeNow(payer.userId, 7, 'metrics-committed', trx);
        assert.ok(charged.ok);
        return charged.value.chargeId;
      });
      await t.application.credits.transaction(async (trx) => {
        assert.ok((await t.application.credits.reverse(payer.userId, chargeId, 'metrics test', trx)).ok);
      });
      const moved = charges(await scrape());
      assert.deepEqual([moved.charges - before.charges, moved.credits - before.credits, moved.refunded - before.refunded], [1, 7, 7]);
    });

    it('a refusal increments the counter of its error code (a 405 included), and nothing is charged', async () => {
      const poor = await keyedUser(t.application.accounts, 'metrics-poor');
      const refusals = (text: string, code: string) => sampleValue(text, 'court_records_refusals_total', { code });
      const before = await scrape();
      const res = await call(poor.key, `/cases/${CASE}/pdf`);
      assert.equal(res.status, 402);
      assert.equal(((await res.json()) as Json).code, 'INSUFFICIENT_API_CREDITS');
      assert.equal((await t.app.request(`${BASE}/cases/${CASE}`)).status, 401);
      assert.equal((await t.app.request(`${BASE}/health`, { method: 'DELETE' })).status, 405);
      const after = await scrape();
      for (const code of ['INSUFFICIENT_API_CREDITS', 'API_KEY_MISSING', 'METHOD_NOT_ALLOWED'])
        assert.equal(refusals(after, code) - refusals(before, code), 1, code);
      assert.deepEqual(charges(after), charges(before));
    });

    it('labels requests by route pattern: no case id or unknown path reaches the exposition', async () => {
      const reader = await keyedUser(t.application.accounts, 'metrics-routes');
      await t.application.credits.grant(reader.userId, { amount: 10, source: 'grant' });
      const labels = { method: 'GET', route: `${BASE}/cases/:id`, status: '200' };
      const before = sampleValue(await scrape(), 'court_records_http_requests_total', labels);
      assert.equal((await call(reader.key, `/cases/${CASE}`)).status, 200);
      const probe = `/no-such-route-${Math.random().toString(36).slice(2)}`;
      assert.equal((await t.app.request(probe)).status, 404);
      const text = await scrape();
      assert.equal(sampleValue(text, 'court_records_http_requests_total', labels) - before, 1);
      assert.ok(hasSample(text, 'court_records_http_request_duration_seconds_count', { route: `${BASE}/cases/:id` }));
      assert.ok(!text.includes(CASE), 'a case id reached a label');
      assert.ok(!text.includes(probe), 'a raw path reached a label');
    });

    it('the lag gauge counts what each projector has not read, and falls to zero once it catches up', async () => {
      const projector = `metrics-test-${factory.name}`;
      const applied: number[] = [];
      const runner = new ProjectorRunner(
        database.db,
        eventStoreOf(database.db),
        { name: projector, apply: async (events) => void applied.push(events.length), reset: async () => undefined },
        { now: () => new Date() },
      );
      t.metrics.observeProjectorLag(() =>
        projectorLag(database.db, eventStoreOf(database.db), [
          { name: projector, feed: 'events' },
          { name: 'metrics-never-ran', feed: 'cases' },
        ]),
      );
      const count = async (table: 'events' | 'cases') =>
        Number(
          (
            await database.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const res = await t.app.request('/ops/metrics');
      assert.equal(res.status, 200);
      const text = await res.text();
      assert.equal(sampleValue(text, 'court_records_projector_lag_events', { projector }), await count('events'));
      assert.ok((await count('events')) > 0);
      assert.equal(sampleValue(text, 'court_records_projector_lag_events', { projector: 'metrics-never-ran' }), await count('cases'));
      await runner.catchUp();
      assert.ok(applied.length > 0);
      const caughtUp = await scrape();
      assert.ok(hasSample(caughtUp, 'court_records_projector_lag_events', { projector }));
      assert.equal(sampleValue(caughtUp, 'court_records_projector_lag_events', { projector }), 0);
    });

    describe('who may scrape', () => {
      it('without METRICS_TOKEN: a caller on this machine, in Prometheus text; a remote or proxied one gets 404', async () => {
        const local = await t.app.request('/ops/metrics');
        assert.equal(local.status, 200);
        assert.match(local.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
        assert.match(await local.text(), /^# HELP court_records_http_requests_total /m);
        const remote = await t.app.request('/ops/metrics', { headers: { [TEST_CLIENT_HEADER]: '203.0.113.9' } });
        assert.deepEqual([remote.status, ((await remote.json()) as Json).code], [404, 'ROUTE_NOT_FOUND']);
        const proxied = await t.app.request('/ops/metrics', { headers: { 'X-Forwarded-For': '203.0.113.9' } });
        assert.equal(proxied.status, 404);
        const ipv6Loopback = await t.app.request('/ops/metrics', { headers: { [TEST_CLIENT_HEADER]: '::1' } });
        assert.equal(ipv6Loopback.status, 200);
        // Behind trusted proxies a loopback socket may be a relayed outside caller, header or not.
        const proxiedApp = buildTestApp({ db: database.db, clock: systemClock, trustProxy: true });
        assert.equal((await proxiedApp.app.request('/ops/metrics')).status, 404);
      });

      it('with METRICS_TOKEN: only a caller presenting it, wherever it is', async () => {
        const guarded = buildTestApp({ db: database.db, clock: systemClock, metricsToken: METRICS_TOKEN });
        const bare = await guarded.app.request('/ops/metrics');
        assert.deepEqual([bare.status, ((await bare.json()) as Json).code], [401, 'ADMIN_UNAUTHORIZED']);
        const wrong = await guarded.app.request('/ops/metrics', { headers: { Authorization: 'Bearer not-the-metrics-token' } });
        assert.equal(wrong.status, 401);
        const right = await guarded.app.request('/ops/metrics', {
          headers: { Authorization: `Bearer ${METRICS_TOKEN}`, [TEST_CLIENT_HEADER]: '203.0.113.9' },
        });
        assert.equal(right.status, 200);
        assert.match(await right.text(), /^court_records_http_requests_total\{/m);
      });

      it('is in neither OpenAPI document', async () => {
        for (const url of ['/openapi.json', `${BASE}/openapi.json`]) {
          const document = (await (await t.app.request(url)).json()) as { paths: Record<string, unknown> };
          assert.ok(Object.keys(document.paths).length > 0);
          assert.ok(!Object.keys(document.paths).some((path) => path.includes('metrics')), url);
        }
      });
    });
  });
