/**
 * Charge identity: the ledger keys on ids the server makes, never on a caller's. Every
 * priced route is called several times with one and the same X-Request-Id, and each call
 * must be charged once, under its own server-made request id (the X-Request-Id answered;
 * the caller's is echoed in X-Client-Request-Id only). Every cap that counts calls (PDF
 * links per month, distinct case details per day, litigation checks per month, live
 * fetches per day) must still count each call. The reported exploit is replayed: 1-credit
 * reads sent with `X-Request-Id: analysis-<caseId>-1` must not pre-empt the analysis run's
 * charge. Runs on both databases over a real Temporal dev server, worker and loopback court
 * portal; `finance reconcile`'s ledger checks are clean at the end.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { storeJudgmentDocuments } from '../../src/corpus/store-documents.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import type { TierLimits } from '../../src/domain/access/tiers.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { startEcourtsPortalServer, type EcourtsPortalServer } from '../support/ecourts-portal-server.ts';
import { NO_TEMPORAL_CLI, startLocalWorkers, startTestTemporal, temporalCli, type TestTemporal } from '../support/temporal.ts';
import { eventStoreOf } from '../../src/wiring.ts';

type Json = Record<string, unknown>;
const operator = { kind: 'operator' } as const;
const SAME_ID = 'caller-chosen-request-0001';
const CASE = 'sc-inabs-5861';
const OTHER_CASES = ['sc-inabs-415', 'sc-inabs-78', 'sc-inabs-652'];
const CNR = 'GAHC010225502018';
const skip = temporalCli() ? false : NO_TEMPORAL_CLI;

for (const factory of databases)
  describe(`charge identity on ${factory.name}`, { timeout: 600_000, skip }, () => {
    let database: OpenedDatabase;
    let temporal: TestTemporal;
    let portal: EcourtsPortalServer;
    let t: TestApp;
    const clock = new SettableClock(new Date());
    const closers: (() => Promise<void>)[] = [];

    async function user(label: string, limits: Partial<TierLimits> = {}, tier: 'enterprise' | 'free' = 'enterprise') {
      const registered = await t.application.accounts.registerUser(
        enterpriseUser(`${label}@charge-identity.example`, { tier, limitOverrides: limits }),
        operator,
      );
      assert.ok(registered.ok);
      const key = await t.application.accounts.createKey(registered.value.userId, label, operator);
      assert.ok(key.ok);
      await t.application.credits.grantToUser(registered.value.userId, { amount: 100_000, source: 'grant' });
      return { key: key.value.fullKey, account: registered.value.userId };
    }

    async function call(key: string, method: 'GET' | 'POST', path: string, body?: unknown, requestId = SAME_ID) {
      const res = await t.app.request(`${BASE}${path}`, {
        method,
        headers: {
          'X-API-Key': key,
          'X-Request-Id': requestId,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { res, body: (await res.json()) as Json };
    }

    /** The ledger's charges made for one server request id. */
    async function chargesOf(requestId: string): Promise<{ chargeId: string; amount: number }[]> {
      const rows = await database.db.selectFrom('events').select('data').where('type', '=', 'CreditsCharged').execute();
      return rows
        .map((r) => r.data as { chargeId: string; amount: number; requestRef: string })
        .filter((d) => d.requestRef === requestId)
        .map(({ chargeId, amount }) => ({ chargeId, amount }));
    }

    /**
     * Calls `times` times with the same X-Request-Id; each call must answer `status`, under a
     * request id of its own, charged exactly once for `price` (a function of the answer for
     * outcome-priced calls), and the balance must fall by the sum.
     */
    async function eachChargedOnce(
      who: { key: string; account: string },
      times: number,
      send: () => Promise<{ res: Response; body: Json }>,
      status: number,
      price: (body: Json) => number,
      options: { sent?: string; settled?: (body: Json) => Promise<void> } = {},
    ): Promise<Json[]> {
      const sent = options.sent ?? SAME_ID;
      const before = (await t.application.credits.balance(who.account)).balance;
      const ids = new Set<string>();
      const bodies: Json[] = [];
      let expected = 0;
      for (let i = 0; i < times; i += 1) {
        const { res, body } = await send();
        assert.equal(res.status, status, JSON.stringify(body));
        assert.equal(res.headers.get('x-client-request-id'), sent);
        const id = res.headers.get('x-request-id') ?? '';
        assert.notEqual(id, sent);
        ids.add(id);
        await options.settled?.(body);
        const charges = await chargesOf(id);
        assert.equal(charges.length, 1, `call ${String(i + 1)} has one charge: ${JSON.stringify(charges)}`);
        assert.equal(charges[0]!.amount, price(body));
        assert.ok(!charges[0]!.chargeId.includes(sent), 'no charge id carries the caller’s id');
        expected += price(body);
        bodies.push(body);
      }
      assert.equal(ids.size, times, 'every call got a request id of its own');
      assert.equal(before - (await t.application.credits.balance(who.account)).balance, expected);
      return bodies;
    }

    async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
      for (let i = 0; i < 600; i += 1) {
        const found = await probe();
        if (found !== undefined) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`${what} did not happen`);
    }

    before(async () => {
      database = await factory.open();
      closers.push(() => database.close());
      temporal = await startTestTemporal({ activityTimeoutSeconds: 20, timeline: { activityTimeoutSeconds: 10, maximumAttempts: 3 } });
      closers.push(() => temporal.close());
      portal = await startEcourtsPortalServer();
      closers.push(() => portal.close());
      t = buildTestApp({
        db: database.db,
        clock,
        index: new PostgresSearchIndex(database.db),
        workflows: temporal.workflows,
        timelineWorkflows: temporal.timelineWorkflows,
        livePortal: true,
        entitledTiers: ['free', 'enterprise'],
      });
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scInAbsSource, ecourtsHcSource] });
      await storeJudgmentDocuments({ db: database.db, storage: t.documents, now: () => clock.now() });
      await startLocalWorkers(temporal, t, { portalUrl: portal.url, clock });
    });
    after(async () => {
      for (const close of closers.reverse()) await close();
    });

    it('a read sent with the analysis run’s id as X-Request-Id does not pre-empt the run’s charge', async () => {
      const who = await user('preempt');
      const runId = `analysis-${CASE}-1`;
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'GET', `/cases/${CASE}`, undefined, runId),
        200,
        () => 1,
        { sent: runId },
      );
      const before = (await t.application.credits.balance(who.account)).balance;
      const admitted = await call(who.key, 'POST', `/cases/${CASE}/analyze`, undefined, runId);
      assert.equal(admitted.res.status, 202, JSON.stringify(admitted.body));
      assert.equal((admitted.body.data as Json).runId, runId);
      assert.equal(before - (await t.application.credits.balance(who.account)).balance, 100);
      await waitFor('the analysis', async () => ((await t.analysis.runs.run(runId))?.status === 'stored' ? true : undefined));
    });

    it('charges every call of every fixed-price route once, whatever X-Request-Id it carries', async () => {
      const who = await user('fixed');
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'POST', '/search/cases', { query: 'appeal' }),
        200,
        () => 5,
      );
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'POST', '/search/cases/semantic', { query: 'compensation for land acquisition' }),
        200,
        (body) => ((body.meta as Json).fallbackMode === undefined ? 10 : 5),
      );
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'GET', '/judges/search?q=singh'),
        200,
        () => 1,
      );
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'GET', `/cases/${CASE}`),
        200,
        () => 1,
      );
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'GET', `/cases/${CASE}/pdf`),
        200,
        () => 5,
      );
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'GET', `/cases/${CASE}/analysis`),
        200,
        () => 1,
      );
    });

    it('charges every analysis, consolidated analysis and cache hit once, whatever X-Request-Id it carries', async () => {
      const who = await user('analysis');
      const [first] = await eachChargedOnce(
        who,
        1,
        () => call(who.key, 'POST', `/cases/${OTHER_CASES[0]}/analyze`),
        202,
        () => 100,
      );
      const runId = String((first!.data as Json).runId);
      await waitFor('the analysis', async () => ((await t.analysis.runs.run(runId))?.status === 'stored' ? true : undefined));
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'POST', `/cases/${OTHER_CASES[0]}/analyze`),
        200,
        () => 1,
      );
      await eachChargedOnce(
        who,
        1,
        () => call(who.key, 'POST', `/cases/${OTHER_CASES[1]}/analyze-consolidated`),
        200,
        () => 400,
      );
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'POST', `/cases/${OTHER_CASES[1]}/analyze-consolidated`),
        200,
        () => 1,
      );
    });

    it('charges every litigation check and batch once, whatever X-Request-Id it carries', async () => {
      const who = await user('screening');
      const earned = (body: Json) => Number((body.meta as Json).creditsCharged);
      await eachChargedOnce(
        who,
        3,
        () => call(who.key, 'POST', '/party/screen', { name: 'Hiralal Motilal Desarda', entityType: 'person', purpose: 'kyc' }),
        200,
        earned,
      );
      await eachChargedOnce(
        who,
        2,
        () =>
          call(who.key, 'POST', '/party/screen/batch', {
            purpose: 'kyc',
            entityType: 'person',
            items: [{ name: 'Hiralal Motilal Desarda' }, { name: 'Hakam Shah' }],
          }),
        200,
        earned,
      );
    });

    it('charges every live timeline fetch once, whatever X-Request-Id it carries', async () => {
      const who = await user('timeline');
      // A live fetch is held at admission and charged when the fetch starts: look once it ended.
      const ended = async (body: Json) => {
        const requestId = String((body.data as Json).requestId);
        await waitFor('the fetch', async () => {
          const job = await t.timeline.jobs.job(requestId);
          return job && job.status !== 'running' ? job : undefined;
        });
      };
      await eachChargedOnce(
        who,
        2,
        () => call(who.key, 'POST', '/request-timeline', { cnr: CNR, refresh: true }),
        202,
        () => 50,
        {
          settled: ended,
        },
      );
    });

    it('counts every call against the caps that count calls, whatever X-Request-Id it carries', async () => {
      const pdfs = await user('pdf-cap', { pdfLinksPerMonth: 2 });
      await eachChargedOnce(
        pdfs,
        2,
        () => call(pdfs.key, 'GET', `/cases/${CASE}/pdf`),
        200,
        () => 5,
      );
      assertRefused(await call(pdfs.key, 'GET', `/cases/${CASE}/pdf`), 429, 'PDF_LIMIT_REACHED');

      const details = await user('detail-cap', { distinctCaseDetailsPerDay: 2 });
      await call(details.key, 'GET', `/cases/${OTHER_CASES[0]}`);
      await call(details.key, 'GET', `/cases/${OTHER_CASES[1]}`);
      assertRefused(await call(details.key, 'GET', `/cases/${OTHER_CASES[2]}`), 429, 'DISTINCT_CASES_LIMIT_REACHED');

      const checks = await user('check-cap', { litigationChecksPerMonth: 2, screeningRequestsPerMinute: 100 }, 'free');
      const screen = () => call(checks.key, 'POST', '/party/screen', { name: 'Hakam Shah', entityType: 'person', purpose: 'kyc' });
      assert.equal((await screen()).res.status, 200);
      assert.equal((await screen()).res.status, 200);
      assertRefused(await screen(), 403, 'PARTY_SCREEN_LIMIT_REACHED');

      const fetches = await user('fetch-cap', { liveFetchesPerDay: 1 });
      const fetch = () => call(fetches.key, 'POST', '/request-timeline', { cnr: CNR, refresh: true });
      assert.equal((await fetch()).res.status, 202);
      assertRefused(await fetch(), 429, 'LIVE_FETCH_LIMIT_REACHED');
    });

    it('leaves a ledger whose balances, lots, reservations and charges equal its fold', async () => {
      await waitFor('every run and fetch to end', async () => {
        const running = await database.db.selectFrom('analysisRuns').select('runId').where('status', '=', 'running').execute();
        const fetching = await database.db.selectFrom('timelineRequests').select('requestId').where('status', '=', 'running').execute();
        return running.length + fetching.length === 0 ? true : undefined;
      });
      const report = await reconcileLedger(
        { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
        {},
      );
      assert.deepEqual(report.differences, []);
    });
  });

function assertRefused(answer: { res: Response; body: Json }, status: number, code: string): void {
  assert.equal(answer.res.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.code, code);
}
