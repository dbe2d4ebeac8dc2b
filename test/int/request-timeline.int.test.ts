/**
 * Timeline requests end to end on both databases, over a real Temporal dev server and
 * worker and a real court portal on loopback serving the real eCourts High Court records
 * (test/support/ecourts-portal-server.ts; its order PDFs carry the order's listing only,
 * no order text). POST /request-timeline answers from the ingested record for free, or
 * fetches live: 202, 50 credits charged once, the timeline equal to the record's, the
 * latest order document stored and served by GET /cases/:id/pdf. A portal failing twice
 * is retried into a success charged once; a portal down, slow or without the CNR fails
 * the job with its charge reversed in the ledger. The refusals (Free tier, daily cap,
 * balance, not a registry case, no portal configured) charge nothing; jobs are private
 * to their account and expire; Idempotency-Key replays; an admission whose workflow
 * start was lost is started by the dispatcher. The shared security matrix runs on both
 * routes. Measured: p50 of POST → 202 and of workflow start → close for a live fetch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EcourtsHttpPortal } from '../../src/adapters/court-portal/ecourts-http-portal.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { TimelineDispatcher } from '../../src/application/timeline/timeline-dispatcher.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import type { CorpusSource } from '../../src/corpus/sources/source.ts';
import { openPglite, type OpenedDatabase } from '../../src/db/open.ts';
import type { CaseTimeline, TimelineCourt } from '../../src/domain/timeline/case-timeline.ts';
import { readPortalRecord } from '../../src/domain/timeline/read-portal-record.ts';
import { timelineFromPortalRecord } from '../../src/domain/timeline/timeline-from-portal.ts';
import { judgmentKey } from '../../src/ports/document-storage.ts';
import type { TimelineWorkflows } from '../../src/ports/timeline-workflows.ts';
import { workflowIds } from '../../workflows/task-queues.ts';
import { createTimelineActivities } from '../../workflows/activities/timeline-activities.ts';
import { createAccessFixture, enterpriseUser, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, TEST_UPGRADE_URL, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { startEcourtsPortalServer, type EcourtsPortalServer } from '../support/ecourts-portal-server.ts';
import { securityMatrix } from '../support/security-matrix.ts';
import { NO_TEMPORAL_CLI, recordHistories, startTestTemporal, temporalCli, type TestTemporal } from '../support/temporal.ts';

type Json = Record<string, unknown>;
const operator = { kind: 'operator' } as const;

/** Jammu & Kashmir HCP 58/2018: disposed, 24 hearings, 9 orders each with a document. */
const JK = 'JKHC020113752018';
/** Gauhati AB/3142/2018: pending, 5 hearings, 5 orders. */
const GA = 'GAHC010225502018';
/** Gauhati BA 64/2024: 1 hearing, 1 order. */
const GA_BAIL = 'GAHC040007922024';
/** Karnataka CRL.P 5658/2024: served by the portal, left out of the ingest so that we do not hold it. */
const UNHELD = 'KAHC010337682024';
/** A well-formed CNR the portal has no record of. */
const UNKNOWN_CNR = 'GAHC019999992020';
const PORTAL_TIMEOUT_MS = 400;

const skip = temporalCli() ? false : NO_TEMPORAL_CLI;

/** The eCourts High Court records, all but UNHELD. */
const heldHcRecords: CorpusSource = {
  ...ecourtsHcSource,
  async *read(ctx) {
    for await (const result of ecourtsHcSource.read(ctx)) if (!('ok' in result) || result.ok.caseId !== `hc-${UNHELD}`) yield result;
  },
};

function p50(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

for (const factory of databases)
  describe(`request timeline on ${factory.name}`, { timeout: 600_000, skip }, () => {
    let database: OpenedDatabase;
    let temporal: TestTemporal;
    let portal: EcourtsPortalServer;
    let t: TestApp;
    let down: TestApp;
    let fixture: AccessFixture;
    let freeKey: string;
    let freeAccount: string;
    let cappedKey: string;
    let cappedAccount: string;
    let poorKey: string;
    let poorAccount: string;
    const clock = new SettableClock(new Date());
    const recorded: Record<string, string> = {};
    /** What `before` opened, closed in reverse order even when it failed halfway. */
    const closers: (() => Promise<void>)[] = [];

    const call = async (
      key: string,
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
      app = t,
    ) => {
      const res = await app.app.request(`${BASE}${path}`, {
        method,
        headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { res, body: (await res.json()) as Json };
    };
    const request = (body: unknown, key = fixture.keys.active, headers: Record<string, string> = {}) =>
      call(key, 'POST', '/request-timeline', body, headers);
    const balance = async (account = fixture.organizationId) => (await t.application.credits.balance(account)).balance;
    /** Runs `work`, and what it cost `account` (the organisation by default). */
    async function costing<T>(work: () => Promise<T>, account = fixture.organizationId): Promise<{ result: T; charged: number }> {
      const before = await balance(account);
      const result = await work();
      return { result, charged: before - (await balance(account)) };
    }
    /** The production outbox and watchdog bounds over `workflows`; a job it cannot settle fails the test. */
    const dispatcherOver = (workflows: TimelineWorkflows) =>
      new TimelineDispatcher({
        jobs: t.timeline.jobs,
        workflows,
        clock,
        graceMs: 15_000,
        startBoundMs: 120_000,
        orphanCheckMs: 120_000,
        maxRunMs: 1_800_000,
        onJobError: (id, err) => assert.fail(`${id}: ${String(err)}`),
      });
    /** Reads the job until it leaves running. */
    async function ended(requestId: string, key = fixture.keys.active): Promise<Json> {
      for (let i = 0; i < 600; i += 1) {
        const { res, body } = await call(key, 'GET', `/request-timeline/${requestId}`);
        assert.equal(res.status, 200, JSON.stringify(body));
        const job = body.data as Json;
        if (job.status !== 'running') return job;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`timeline job ${requestId} did not end`);
    }
    /** The record's own timeline, as the loopback portal serves it. */
    function recordTimeline(cnr: string, fetchedAt: string, court?: TimelineCourt): CaseTimeline {
      const read = readPortalRecord(portal.records.get(cnr));
      assert.ok('record' in read);
      return timelineFromPortalRecord(read.record, { fetchedAt, ...(court ? { court } : {}) });
    }
    const ledgerEvents = async (type: string, id: string) =>
      (await database.db.selectFrom('events').select(['type', 'data']).where('type', '=', type).execute()).filter((e) => {
        const data = e.data as Json;
        return data.reservationId === id || data.chargeId === id;
      });
    /** A live fetch of `cnr` to its end, and what it cost the key's billing account. */
    async function liveFetch(cnr: string, key = fixture.keys.active, account = fixture.organizationId) {
      const { result, charged } = await costing(async () => {
        const admitted = await request({ cnr, refresh: true }, key);
        assert.equal(admitted.res.status, 202, JSON.stringify(admitted.body));
        const requestId = String((admitted.body.data as Json).requestId);
        return { requestId, job: await ended(requestId, key) };
      }, account);
      return { ...result, charged };
    }

    before(async () => {
      database = await factory.open();
      closers.push(() => database.close());
      temporal = await startTestTemporal({ timeline: { activityTimeoutSeconds: 10, maximumAttempts: 3 } });
      closers.push(() => temporal.close());
      portal = await startEcourtsPortalServer();
      closers.push(() => portal.close());
      t = buildTestApp({
        db: database.db,
        clock,
        index: new PostgresSearchIndex(database.db),
        timelineWorkflows: temporal.timelineWorkflows,
        livePortal: true,
        entitledTiers: ['free', 'payg', 'enterprise'],
      });
      fixture = await createAccessFixture(t.application.accounts, clock);
      const closed = await openPglite(undefined);
      await closed.close();
      down = buildTestApp({ db: closed.db, clock });
      await t.application.credits.grant(fixture.organizationId, { amount: 100_000, source: 'grant' });
      await t.application.credits.grant(fixture.allowlistedOrganizationId, { amount: 10_000, source: 'grant' });
      const user = async (email: string, over: Parameters<typeof enterpriseUser>[1], credits: number) => {
        const registered = await t.application.accounts.registerUser(enterpriseUser(email, { organizationId: null, ...over }), operator);
        assert.ok(registered.ok);
        const key = await t.application.accounts.createKey(registered.value.userId, 'timeline', operator);
        assert.ok(key.ok);
        if (credits > 0) await t.application.credits.grantToUser(registered.value.userId, { amount: credits, source: 'grant' });
        return { key: key.value.fullKey, account: (await t.application.credits.billingAccountForUser(registered.value.userId))! };
      };
      ({ key: freeKey, account: freeAccount } = await user('free@timeline.example', { tier: 'free' }, 1_000));
      ({ key: cappedKey, account: cappedAccount } = await user(
        'capped@timeline.example',
        { limitOverrides: { liveFetchesPerDay: 1 } },
        1_000,
      ));
      ({ key: poorKey, account: poorAccount } = await user('poor@timeline.example', {}, 30));

      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [heldHcRecords, scInAbsSource] });
      await temporal.startTimelineWorker(
        createTimelineActivities({
          jobs: t.timeline.jobs,
          records: t.timeline.records,
          portal: new EcourtsHttpPortal({ url: portal.url, timeoutMs: PORTAL_TIMEOUT_MS }),
          documents: t.documents,
          clock,
        }),
      );
    });
    after(async () => {
      // RECORD_HISTORIES=1 saves these fetches' histories for the replay test (test/int/workflow-replay.int.test.ts).
      if (process.env.RECORD_HISTORIES && factory.name === 'pglite') await recordHistories(temporal, recorded);
      for (const close of closers.reverse()) await close();
    });

    it('answers from the stored record at once: 202, completed, free, the record’s own hearings and orders', async () => {
      const { result: answered, charged } = await costing(() => request({ caseId: `hc-${JK}` }));
      assert.equal(charged, 0);
      assert.equal(answered.res.status, 202, JSON.stringify(answered.body));
      const job = answered.body.data as Json;
      assert.equal(job.status, 'completed');
      assert.deepEqual(job.charge, { credits: 0, state: 'none' });
      assert.equal((answered.body.meta as Json).creditsCharged, 0);
      const timeline = job.timeline as CaseTimeline;
      assert.equal(timeline.source, 'stored');
      assert.equal(timeline.hearings.length, 24);
      assert.equal(timeline.orders.length, 9);
      // The stored timeline is the record's, but for where and when it was read and the court's name.
      assert.deepEqual({ ...timeline, source: 'live', fetchedAt: 'x', court: { ...timeline.court, name: null } }, recordTimeline(JK, 'x'));
      assert.match(String(timeline.court.name), /Jammu/i);
      assert.equal(answered.res.headers.get('location'), job.statusUrl);
      const read = await call(fixture.keys.active, 'GET', `/request-timeline/${String(job.requestId)}`);
      assert.equal(read.res.status, 200);
      assert.deepEqual((read.body.data as Json).timeline, timeline);
      assert.equal(Date.parse(String(job.expiresAt)) - Date.parse(String(job.createdAt)), 7 * 86_400_000);
    });

    it('resolves a case number or a grouped CNR to the same stored case', async () => {
      for (const body of [{ caseId: 'AB/3142/2018' }, { cnr: 'GAHC01-022550-2018' }, { cnr: GA.toLowerCase() }]) {
        const answered = await request(body);
        assert.equal(answered.res.status, 202, JSON.stringify(answered.body));
        const job = answered.body.data as Json;
        assert.deepEqual([job.caseId, job.cnr, job.status], [`hc-${GA}`, GA, 'completed']);
        assert.equal((job.timeline as CaseTimeline).caseNumber, 'AB/3142/2018');
      }
    });

    it('completes a Supreme Court judgment with no timeline and a note, and refuses to fetch it live (400), charging nothing', async () => {
      const answered = await request({ caseId: 'sc-inabs-5861' });
      assert.equal(answered.res.status, 202);
      const job = answered.body.data as Json;
      assert.deepEqual([job.status, job.timeline, job.cnr], ['completed', null, null]);
      assert.match(String(job.note), /no registry timeline/i);
      const { result: refused, charged } = await costing(() => request({ caseId: 'sc-inabs-5861', refresh: true }));
      assert.equal(charged, 0);
      assert.equal(refused.res.status, 400);
      assert.equal(refused.body.code, 'VALIDATION_ERROR');
      assert.match(String(refused.body.message), /Supreme Court judgment cannot be fetched live/);
    });

    it('fetches live: 202 running, 50 charged once, the record’s hearings and orders, the latest order stored and served by GET /cases/:id/pdf', async () => {
      const calls = { ...portal.calls };
      const { result: job, charged } = await costing(async () => {
        const admitted = await request({ caseId: `hc-${JK}`, refresh: true });
        assert.equal(admitted.res.status, 202, JSON.stringify(admitted.body));
        assert.equal(admitted.res.headers.get('retry-after'), '5');
        assert.equal((admitted.body.meta as Json).creditsCharged, 50);
        return ended(String((admitted.body.data as Json).requestId));
      });
      assert.equal(charged, 50);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      assert.deepEqual(job.charge, { credits: 50, state: 'charged' });
      const timeline = job.timeline as CaseTimeline;
      assert.equal(timeline.source, 'live');
      const court = { code: 'JKHC', name: timeline.court.name };
      assert.ok(court.name !== null);
      assert.deepEqual(timeline, recordTimeline(JK, timeline.fetchedAt, court));
      assert.deepEqual(
        [timeline.hearings.length, timeline.orders.length, timeline.status, timeline.decisionDate],
        [24, 9, 'disposed', '2020-12-24'],
      );
      assert.equal(portal.calls.caseHistory - calls.caseHistory, 1);
      assert.equal(portal.calls.orderDocument - calls.orderDocument, 1);
      const requestId = String(job.requestId);
      recorded['timeline-success'] = workflowIds.timeline(requestId);
      const reservation = (await t.timeline.jobs.job(requestId))?.reservationId;
      assert.ok(reservation);
      assert.equal((await ledgerEvents('CreditsCharged', reservation)).length, 1);
      assert.equal((await ledgerEvents('ChargeReversed', reservation)).length, 0);

      // The stored document is the portal's (listing-only in this test portal), served by GET /cases/:id/pdf.
      const bytes = await t.documents.get(judgmentKey(`hc-${JK}`));
      assert.ok(bytes && new TextDecoder().decode(bytes.slice(0, 4)) === '%PDF');
      assert.equal(job.pdfUrl, `${BASE}/cases/hc-${JK}/pdf`);
      const pdf = await call(fixture.keys.active, 'GET', `/cases/hc-${JK}/pdf`);
      assert.equal(pdf.res.status, 200, JSON.stringify(pdf.body));
    });

    it('fetches a CNR we do not hold as an unnamed court, storing no document', async () => {
      const cnr = UNHELD;
      assert.equal(await t.timeline.records.byCaseId(`hc-${cnr}`), null);
      const stored = await request({ cnr });
      assert.equal(stored.res.status, 404);
      assert.equal(stored.body.code, 'CASE_NOT_FOUND');
      assert.match(String(stored.body.message), /refresh true/);
      const { job, charged } = await liveFetch(cnr);
      assert.equal(charged, 50);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      const timeline = job.timeline as CaseTimeline;
      assert.deepEqual(timeline, recordTimeline(cnr, timeline.fetchedAt));
      assert.equal(timeline.court.name, null);
      assert.equal(job.pdfUrl, null);
    });

    it('retries a portal that fails twice (503) and completes on the third attempt, charged 50 once', async () => {
      const before = portal.calls.caseHistory;
      portal.failNext(2);
      const { requestId, job, charged } = await liveFetch(GA);
      assert.equal(job.status, 'completed', JSON.stringify(job.error));
      assert.equal(charged, 50);
      assert.equal(portal.calls.caseHistory - before, 3);
      assert.equal((job.timeline as CaseTimeline).hearings.length, 5);
      const reservation = (await t.timeline.jobs.job(requestId))!.reservationId!;
      assert.equal((await ledgerEvents('CreditsCharged', reservation)).length, 1);
      recorded['timeline-retries'] = workflowIds.timeline(requestId);
    });

    it('fails a fetch whose portal stays down (UPSTREAM_UNAVAILABLE) and reverses its charge in the ledger', async () => {
      portal.failNext(1_000);
      try {
        const { requestId, job, charged } = await liveFetch(GA_BAIL);
        assert.equal(job.status, 'failed');
        assert.deepEqual((job.error as Json).code, 'UPSTREAM_UNAVAILABLE');
        assert.deepEqual(job.charge, { credits: 0, state: 'reversed' });
        assert.equal(job.timeline, null);
        assert.equal(charged, 0);
        const reservation = (await t.timeline.jobs.job(requestId))!.reservationId!;
        assert.equal((await ledgerEvents('CreditsCharged', reservation)).length, 1);
        assert.equal((await ledgerEvents('ChargeReversed', reservation)).length, 1);
        recorded['timeline-failure-reversal'] = workflowIds.timeline(requestId);
      } finally {
        portal.failNext(0);
      }
    });

    it('fails a fetch whose portal stays slower than its timeout (UPSTREAM_TIMEOUT), charge reversed', async () => {
      portal.delayMs = PORTAL_TIMEOUT_MS * 3;
      try {
        const { job, charged } = await liveFetch(GA_BAIL);
        assert.equal(job.status, 'failed');
        assert.equal((job.error as Json).code, 'UPSTREAM_TIMEOUT');
        assert.equal(charged, 0);
      } finally {
        portal.delayMs = 0;
      }
    });

    it('fails at once, without retrying, a CNR the portal does not know (CASE_NOT_FOUND), charge reversed', async () => {
      const before = portal.calls.caseHistory;
      const { requestId, job, charged } = await liveFetch(UNKNOWN_CNR);
      assert.equal(job.status, 'failed');
      assert.equal((job.error as Json).code, 'CASE_NOT_FOUND');
      assert.equal(charged, 0);
      assert.equal(portal.calls.caseHistory - before, 1);
      recorded['timeline-not-found'] = workflowIds.timeline(requestId);
    });

    it('refuses refresh true on the Free tier with 403 LIVE_FETCH_NOT_ALLOWED before any idempotency record, charging nothing', async () => {
      const headers = { 'Idempotency-Key': 'free-tier-timeline-1' };
      const { result: refused, charged } = await costing(() => request({ cnr: GA, refresh: true }, freeKey, headers), freeAccount);
      assert.equal(charged, 0);
      assert.equal(refused.res.status, 403);
      assert.equal(refused.body.code, 'LIVE_FETCH_NOT_ALLOWED');
      assert.equal(refused.body.upgradeUrl, TEST_UPGRADE_URL);
      // No record was left under the key: the same key with another body runs, it is not a reuse.
      const stored = await request({ cnr: GA }, freeKey, headers);
      assert.equal(stored.res.status, 202, JSON.stringify(stored.body));
      assert.equal((stored.body.data as Json).status, 'completed');
    });

    it('caps live fetches per day with 429 LIVE_FETCH_LIMIT_REACHED and Retry-After until 00:00 UTC, charging the refused call nothing', async () => {
      const first = await liveFetch(GA, cappedKey, cappedAccount);
      assert.equal(first.job.status, 'completed');
      assert.equal(first.charged, 50);
      const { result: refused, charged } = await costing(() => request({ cnr: GA, refresh: true }, cappedKey), cappedAccount);
      assert.equal(charged, 0);
      assert.equal(refused.res.status, 429, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'LIVE_FETCH_LIMIT_REACHED');
      const now = clock.now();
      const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
      assert.equal(refused.res.headers.get('retry-after'), String(Math.ceil((midnight - now.getTime()) / 1000)));
      assert.equal(await balance(cappedAccount), 1_000 - 50);
      // Answers from the store are not live fetches: the cap does not apply.
      assert.equal((await request({ cnr: GA }, cappedKey)).res.status, 202);
    });

    it('refuses a balance below 50 with 402 (required, balance, shortfall, topUpUrl), admitting and charging nothing', async () => {
      const refused = await request({ cnr: GA, refresh: true }, poorKey);
      assert.equal(refused.res.status, 402);
      assert.equal(refused.body.code, 'INSUFFICIENT_API_CREDITS');
      assert.deepEqual([refused.body.required, refused.body.balance, refused.body.shortfall], [50, 30, 20]);
      assert.equal(typeof refused.body.topUpUrl, 'string');
      assert.equal(await balance(poorAccount), 30);
      const jobs = await database.db.selectFrom('timelineRequests').select('requestId').where('accountId', '=', poorAccount).execute();
      assert.equal(jobs.length, 0);
    });

    it('answers 502 UPSTREAM_UNAVAILABLE, charging nothing, when no court portal is configured; the stored answer still works', async () => {
      const unconfigured = buildTestApp({ db: database.db, clock, timelineWorkflows: temporal.timelineWorkflows, livePortal: false });
      const { result: refused, charged } = await costing(() =>
        call(fixture.keys.active, 'POST', '/request-timeline', { cnr: GA, refresh: true }, {}, unconfigured),
      );
      assert.equal(charged, 0);
      assert.equal(refused.res.status, 502);
      assert.equal(refused.body.code, 'UPSTREAM_UNAVAILABLE');
      assert.match(String(refused.body.message), /not configured/);
      assert.equal((await call(fixture.keys.active, 'POST', '/request-timeline', { cnr: GA }, {}, unconfigured)).res.status, 202);
    });

    it('validates the body: exactly one of caseId or cnr, a real CNR, no unknown fields; unknown and withheld cases', async () => {
      for (const body of [
        {},
        { caseId: `hc-${GA}`, cnr: GA },
        { cnr: 'GAHC0102255018' },
        { cnr: GA, refresh: 'yes' },
        { cnr: GA, force: true },
      ]) {
        const refused = await request(body);
        assert.equal(refused.res.status, 400, JSON.stringify(body));
        assert.equal(refused.body.code, 'VALIDATION_ERROR');
        assert.ok(Array.isArray(refused.body.details));
      }
      const unknown = await request({ caseId: 'hc-XXXX000000000000' });
      assert.deepEqual([unknown.res.status, unknown.body.code], [404, 'CASE_NOT_FOUND']);
      const withheld = 'hc-JKHC020000152024';
      assert.ok(await t.timeline.records.byCaseId(withheld), 'the fixture case is ingested');
      const restricted = await t.application.cases.restrict(withheld, operator);
      assert.ok(restricted.ok);
      for (const body of [{ caseId: withheld }, { cnr: withheld.slice(3), refresh: true }]) {
        const refused = await request(body);
        assert.deepEqual([refused.res.status, refused.body.code], [403, 'CASE_RESTRICTED'], JSON.stringify(body));
      }
    });

    it('answers JOB_NOT_FOUND for an unknown id, another account’s job and an expired job', async () => {
      const own = await request({ cnr: GA });
      const requestId = String((own.body.data as Json).requestId);
      const unknown = await call(fixture.keys.active, 'GET', '/request-timeline/tlr_00000000-0000-0000-0000-000000000000');
      assert.deepEqual([unknown.res.status, unknown.body.code], [404, 'JOB_NOT_FOUND']);
      const foreign = await call(cappedKey, 'GET', `/request-timeline/${requestId}`);
      assert.deepEqual([foreign.res.status, foreign.body.code], [404, 'JOB_NOT_FOUND']);
      // A member of the same organisation shares its billing account, so sees its jobs.
      assert.equal((await call(fixture.keys.member, 'GET', `/request-timeline/${requestId}`)).res.status, 200);
      const now = clock.now();
      try {
        clock.set(new Date(now.getTime() + 7 * 86_400_000 - 1_000));
        assert.equal((await call(fixture.keys.active, 'GET', `/request-timeline/${requestId}`)).res.status, 200);
        clock.set(new Date(now.getTime() + 7 * 86_400_000 + 1_000));
        const expired = await call(fixture.keys.active, 'GET', `/request-timeline/${requestId}`);
        assert.deepEqual([expired.res.status, expired.body.code], [404, 'JOB_NOT_FOUND']);
      } finally {
        clock.set(now);
      }
    });

    it('replays a live fetch with the same Idempotency-Key without a second charge or job; another body is 409', async () => {
      const headers = { 'Idempotency-Key': 'timeline-live-once-1' };
      const body = { cnr: GA, refresh: true };
      const { result, charged } = await costing(async () => {
        const first = await request(body, fixture.keys.active, headers);
        const replay = await request(body, fixture.keys.active, headers);
        await ended(String((first.body.data as Json).requestId));
        return { first, replay };
      });
      const { first, replay } = result;
      assert.equal(first.res.status, 202);
      assert.equal(replay.res.status, 202);
      assert.equal(replay.res.headers.get('idempotency-replayed'), 'true');
      assert.deepEqual(replay.body, first.body);
      assert.equal(charged, 50);
      const reused = await request({ cnr: GA, refresh: false }, fixture.keys.active, headers);
      assert.deepEqual([reused.res.status, reused.body.code], [409, 'IDEMPOTENCY_KEY_REUSED']);
    });

    it('refuses a live fetch the workflow engine cannot start with 503 WORKFLOW_ENGINE_UNAVAILABLE, its hold released', async () => {
      const stopped = await startTestTemporal();
      await stopped.close();
      const down = buildTestApp({ db: database.db, clock, livePortal: true, timelineWorkflows: stopped.timelineWorkflows });
      const before = await balance();
      const jobsBefore = await database.db.selectFrom('timelineRequests').select('requestId').execute();
      const refused = await call(fixture.keys.active, 'POST', '/request-timeline', { cnr: GA, refresh: true }, {}, down);
      assert.deepEqual([refused.res.status, refused.body.code], [503, 'WORKFLOW_ENGINE_UNAVAILABLE'], JSON.stringify(refused.body));
      assert.equal(refused.res.headers.get('retry-after'), '30');
      assert.equal(await balance(), before);
      const made = (await database.db.selectFrom('timelineRequests').select(['requestId', 'status']).execute()).filter(
        (j) => !jobsBefore.some((b) => b.requestId === j.requestId),
      );
      assert.deepEqual(
        made.map((j) => j.status),
        ['failed'],
      );
      assert.equal((await ledgerEvents('CreditsReleased', (await t.timeline.jobs.job(made[0]!.requestId))!.reservationId!)).length, 1);
    });

    it('starts, through the dispatcher, a live fetch whose process died between admission and start', async () => {
      // The admission as the request makes it, committed, with no start after it: what a crash leaves.
      const admitted = await t.timeline.jobs.admitLiveFetch({
        subject: { caseId: `hc-${GA}`, cnr: GA },
        accountId: fixture.organizationId,
        dailyCap: 1_000,
        callId: 'crashed-before-start',
      });
      assert.ok(admitted.ok);
      const { requestId } = admitted;
      const passOver = dispatcherOver(temporal.timelineWorkflows);
      // Within the grace period a start may still be in flight: left alone.
      assert.deepEqual(await passOver.dispatch(), { started: 0, failed: 0 });
      clock.advanceSeconds(16);
      assert.deepEqual(await passOver.dispatch(), { started: 1, failed: 0 });
      const job = await ended(requestId);
      assert.equal(job.status, 'completed');
      assert.deepEqual(await passOver.dispatch(), { started: 0, failed: 0 });
    });

    it('fails and releases a live fetch whose workflow could not be started within the bound', async () => {
      const stopped = await startTestTemporal();
      await stopped.close();
      const before = await balance();
      const admitted = await t.timeline.jobs.admitLiveFetch({
        subject: { caseId: `hc-${GA}`, cnr: GA },
        accountId: fixture.organizationId,
        dailyCap: 1_000,
        callId: 'engine-down-after-admission',
      });
      assert.ok(admitted.ok);
      assert.equal(await balance(), before - 50);
      const dispatcher = dispatcherOver(stopped.timelineWorkflows);
      clock.advanceSeconds(60);
      // The engine is down: the job waits for it, still holding its credits.
      assert.deepEqual(await dispatcher.dispatch(), { started: 0, failed: 0 });
      clock.advanceSeconds(61);
      assert.deepEqual(await dispatcher.dispatch(), { started: 0, failed: 1 });
      const job = (await t.timeline.jobs.job(admitted.requestId))!;
      assert.deepEqual([job.status, job.errorCode], ['failed', 'UPSTREAM_UNAVAILABLE']);
      assert.equal(await balance(), before);
    });

    it('measures POST → 202 and workflow start → completion of live fetches over the loopback portal', async () => {
      const admissions: number[] = [];
      const runs: number[] = [];
      for (let i = 0; i < 15; i += 1) {
        const started = performance.now();
        const admitted = await request({ cnr: JK, refresh: true });
        admissions.push(performance.now() - started);
        assert.equal(admitted.res.status, 202);
        const requestId = String((admitted.body.data as Json).requestId);
        assert.equal((await ended(requestId)).status, 'completed');
        const handle = temporal.runtime.client.workflow.getHandle(workflowIds.timeline(requestId));
        await handle.result();
        const described = await handle.describe();
        assert.ok(described.closeTime);
        runs.push(described.closeTime.getTime() - described.startTime.getTime());
      }
      const figures = { admissionP50Ms: Math.round(p50(admissions)), workflowP50Ms: Math.round(p50(runs)), samples: admissions.length };
      console.log(`request-timeline figures on ${factory.name}: ${JSON.stringify(figures)}`);
      assert.ok(figures.workflowP50Ms > 0);
    });

    describe('the security matrix', () => {
      // The gate's own plan list (Enterprise only) and a store that is down, on the same wiring.
      const matrix = () => {
        const gated = buildTestApp({ db: database.db, clock, timelineWorkflows: temporal.timelineWorkflows, livePortal: true });
        return { app: gated.app, fixture, appWithIdentityDown: down.app, balanceOf: (account: string) => balance(account) };
      };
      securityMatrix(
        { method: 'POST', path: '/request-timeline', body: { cnr: GA_BAIL, refresh: true }, okStatus: 202, price: 50 },
        matrix,
      );
      securityMatrix({ method: 'GET', path: '/request-timeline/tlr_unknown', okStatus: 404 }, matrix);
    });
  });
