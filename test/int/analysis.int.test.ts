/**
 * AI analysis end to end on both databases, over a real Temporal dev server and worker:
 * POST /cases/:id/analyze (202, charged at admission, stored by the workflow, readable
 * through GET /cases/:id/analysis and hasAnalysis on the case), the cache hit at 1 credit,
 * force, a remote fetch from an allow-listed court host (a real HTTP server on loopback
 * serving the same judgment as a PDF) charged +20, the +20 given back by a run that found
 * its document stored meanwhile, the refusals in the spec's order with nothing charged, a
 * failing run whose charge is reversed in the ledger, the concurrency cap, consolidated
 * analysis (restricted documents never in it) and Idempotency-Key. Every charge is
 * checked in the ledger.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ANALYSIS_FAILURES } from '../../src/domain/analysis-request/failure.ts';
import { HttpRemoteDocuments } from '../../src/adapters/http/remote-document-fetcher.ts';
import { LocalExtractiveAnalyser } from '../../src/adapters/llm/local-extractive-analyser.ts';
import { pdfText } from '../../src/adapters/pdf/pdf-text.ts';
import { renderJudgmentPdf } from '../../src/adapters/pdf/render-judgment-pdf.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { reconcileLedger } from '../../src/application/credits/reconcile.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { mapIk50Row } from '../../src/corpus/sources/sc-ik50.ts';
import { scMetadataSource } from '../../src/corpus/sources/sc-metadata.ts';
import { readJsonl, type CorpusSource } from '../../src/corpus/sources/source.ts';
import { storeJudgmentDocuments } from '../../src/corpus/store-documents.ts';
import { openPglite, type OpenedDatabase } from '../../src/db/open.ts';
import { CoversRestrictedError } from '../../src/application/analysis/analysis-runs.ts';
import { normaliseCaseNumber } from '../../src/domain/case/case-number.ts';
import { foldHomoglyphs, stripZeroWidthMarks } from '../../src/domain/watermark/alphabet.ts';
import type { CaseAnalyser } from '../../src/ports/case-analyser.ts';
import { judgmentKey } from '../../src/ports/document-storage.ts';
import { createAnalysisActivities } from '../../workflows/activities/analysis-activities.ts';
import type { AnalysisActivities } from '../../workflows/analysis-activity-types.ts';
import { createAccessFixture, enterpriseUser, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, SettableClock, TEST_UPGRADE_URL, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';
import {
  NO_TEMPORAL_CLI,
  recordHistories,
  startTestTemporal,
  temporalCli,
  type RunningWorker,
  type TestTemporal,
  runEnded as waitForRunEnd,
} from '../support/temporal.ts';
import { join } from 'node:path';
import { eventStoreOf } from '../../src/wiring.ts';
import { IDEMPOTENCY_LEASE_MS } from '../../src/domain/idempotency/idempotency.ts';
import { requestFingerprint } from '../../src/http/middleware/idempotency.ts';

type Json = Record<string, unknown>;
const operator = { kind: 'operator' } as const;

/** The Supreme Court index entry of Delhi Transport Corporation v. DTC Mazdoor Congress (4 Sep 1990): no text held. */
const DTC_DIARY = '69848-1986';
const DTC_PATH = 'jonew/judis/7431.pdf';
/** The same judgment's published text (ik50 row 1), which the loopback "court site" serves as a PDF. */
const DTC_IK50_DOC = '1';
/** Saraswati Industrial Syndicate v. CIT (4 Sep 1990), another index entry: its document gets stored while its run waits. */
const SARASWATI_DIARY = '60911-1976';

const indexEntries: CorpusSource = {
  ...scMetadataSource,
  async *read(ctx) {
    for await (const result of scMetadataSource.read(ctx))
      if ('ok' in result && [DTC_DIARY, SARASWATI_DIARY].some((diary) => result.ok.extra.diaryNo === diary)) yield result;
  },
};

/**
 * Two case numbers each shared by two IN-Abs judgments, re-filed under it as `sc-twin-<doc>`
 * (distinct texts, so what a consolidated analysis took from each is recognisable): one
 * pair has a document restricted before any analysis, the other after one is stored.
 */
const TWINS = {
  restrictedFirst: { caseNumber: 'Civil Appeal No. 4242 of 1999', docs: ['380', '715'] },
  restrictedLater: { caseNumber: 'Civil Appeal No. 4243 of 1999', docs: ['1778', '1789'] },
} as const;
const twinId = (doc: string) => `sc-twin-${doc}`;

const twinDocuments: CorpusSource = {
  ...scInAbsSource,
  async *read(ctx) {
    const numberOf = new Map<string, string>(
      Object.values(TWINS).flatMap((pair) => pair.docs.map((doc) => [`sc-inabs-${doc}`, pair.caseNumber] as const)),
    );
    for await (const result of scInAbsSource.read(ctx)) {
      if (!('ok' in result)) continue;
      const caseNumber = numberOf.get(result.ok.caseId);
      if (!caseNumber) continue;
      const caseId = twinId(result.ok.caseId.replace('sc-inabs-', ''));
      yield { ok: { ...result.ok, caseId, caseNumber, caseNumberNormalised: normaliseCaseNumber(caseNumber) } };
    }
  },
};

/** A JSON value as text with the watermark folded away, for looking for a document's own sentences in it. */
const unmarkedText = (value: unknown) => foldHomoglyphs(stripZeroWidthMarks(JSON.stringify(value)));

async function dtcJudgmentPdf(): Promise<Uint8Array> {
  for await (const line of readJsonl(join(corpusDir, 'sc-judgments-text-ik50', 'ik50_judgments.jsonl'), 'ik50_judgments.jsonl')) {
    if (!('json' in line.value) || (line.value.json as { doc_no?: string }).doc_no !== DTC_IK50_DOC) continue;
    const mapped = mapIk50Row(line.ref, line.value.json);
    if (!('ok' in mapped) || mapped.ok.text === null) throw new Error('ik50 row 1 did not map');
    const c = mapped.ok;
    return (
      await renderJudgmentPdf({
        caseId: c.caseId,
        caseNumber: c.caseNumber,
        courtName: c.court.name,
        title: c.title,
        decisionDate: c.decisionDate,
        judges: c.judges,
        text: c.text!,
      })
    ).bytes;
  }
  throw new Error('ik50 row 1 not found');
}

/** A court site on loopback: serves the DTC judgment at its index path, counts requests. */
async function startCourtSite(pdf: Uint8Array): Promise<{ server: Server; base: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === `/${DTC_PATH}`) {
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, requests };
}

const skip = temporalCli() ? false : NO_TEMPORAL_CLI;

for (const factory of databases)
  describe(`analysis on ${factory.name}`, { timeout: 600_000, skip }, () => {
    let database: OpenedDatabase;
    let temporal: TestTemporal;
    let t: TestApp;
    let fixture: AccessFixture;
    let freeKey: string;
    let freeUser: string;
    let cappedKey: string;
    let cappedAccount: string;
    let site: Awaited<ReturnType<typeof startCourtSite>>;
    let dtcPdf: Uint8Array;
    let activities: AnalysisActivities;
    let worker: RunningWorker;
    let failNext = false;
    /** Attempts that fail before the analyser answers: exercises the activity retry policy. */
    let failAttempts = 0;
    let down: TestApp;
    const clock = new SettableClock(new Date());
    const dtcCaseId = `sc-${DTC_DIARY}-19900904`;

    const call = async (key: string, method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await t.app.request(`${BASE}${path}`, {
        method,
        headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { res, body: (await res.json()) as Json };
    };
    const balance = async (account = fixture.organizationId) => (await t.application.credits.balance(account)).balance;
    async function cost(work: () => Promise<unknown>, account?: string): Promise<number> {
      const before = await balance(account);
      await work();
      return before - (await balance(account));
    }
    /** Runs `work` and returns its value with what it cost the account. */
    async function costOf<T>(work: () => Promise<T>, account?: string): Promise<{ value: T; charged: number }> {
      const before = await balance(account);
      const value = await work();
      return { value, charged: before - (await balance(account)) };
    }
    async function analysisOf(caseId: string, key = fixture.keys.active): Promise<Json> {
      for (let i = 0; i < 200; i += 1) {
        const run = await t.analysis.runs.run(`analysis-${caseId}-1`);
        const { body } = await call(key, 'GET', `/cases/${caseId}/analysis`);
        const data = body.data as Json;
        if (data.hasAnalysis === true) return body;
        const latest = (body.meta as Json).latestRun as Json | null;
        if (latest?.status === 'failed') return body;
        if (run === null && i > 20) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no analysis of ${caseId} arrived`);
    }
    /** The ledger's charges and reversals of a run (its own charge and its surcharge), in order. */
    async function ledgerOf(runId: string): Promise<{ type: string; chargeId: string; amount: number; requestRef?: string }[]> {
      const rows = await database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('type', 'in', ['CreditsCharged', 'ChargeReversed'])
        .orderBy('globalPosition')
        .execute();
      return rows
        .map((r) => ({ type: r.type, ...(r.data as { chargeId: string; amount: number; requestRef?: string }) }))
        .filter((e) => e.chargeId === runId || e.chargeId.startsWith(`${runId}:`))
        .map(({ type, chargeId, amount, requestRef }) => ({ type, chargeId, amount, ...(requestRef ? { requestRef } : {}) }));
    }
    /** A consolidated answer holds the open document's content and neither the restricted one's id nor its text. */
    async function assertWithout(body: Json, open: string, withheld: string): Promise<void> {
      const raw = JSON.stringify(body);
      assert.ok(!raw.includes(withheld), `the restricted id ${withheld} is in the answer`);
      const text = unmarkedText(body);
      const sentences = async (caseId: string) => {
        const lookup = await t.research.cases.lookup(caseId.replace('sc-twin-', 'sc-inabs-'));
        assert.ok('found' in lookup);
        const analysis = await new LocalExtractiveAnalyser().analyse({
          caseId,
          caseNumber: lookup.found.caseNumber,
          title: lookup.found.title,
          courtName: lookup.found.court.name,
          decisionDate: lookup.found.decisionDate,
          text: lookup.found.text!,
        });
        return { text: lookup.found.text!, passages: [...analysis.keyFacts, ...analysis.courtsReasoning].map((p) => p.text) };
      };
      const own = await sentences(open);
      const theirs = await sentences(withheld);
      assert.ok(
        own.passages.some((p) => text.includes(JSON.stringify(p).slice(1, -1))),
        'the open document’s passages are in the answer',
      );
      const distinctive = theirs.passages.filter((p) => p.length > 60 && !own.text.includes(p));
      assert.ok(distinctive.length > 0);
      for (const passage of distinctive)
        assert.ok(!text.includes(JSON.stringify(passage).slice(1, -1)), `restricted text leaked: ${passage}`);
    }
    const runEnded = (runId: string) => waitForRunEnd(t.analysis.runs, runId);

    before(async () => {
      database = await factory.open();
      temporal = await startTestTemporal({ activityTimeoutSeconds: 20 });
      dtcPdf = await dtcJudgmentPdf();
      site = await startCourtSite(dtcPdf);
      const allowlist = ['sci.gov.in', '*.gov.in', new URL(site.base).host];
      t = buildTestApp({
        db: database.db,
        clock,
        index: new PostgresSearchIndex(database.db),
        workflows: temporal.workflows,
        remoteFetchAllowlist: allowlist,
        scDocumentsBaseUrl: site.base,
        entitledTiers: ['free', 'payg', 'enterprise'],
      });
      fixture = await createAccessFixture(t.application.accounts, clock);
      const closed = await openPglite(undefined);
      await closed.close();
      down = buildTestApp({ db: closed.db, clock });
      await t.application.credits.grant(fixture.organizationId, { amount: 100_000, source: 'grant' });
      await t.application.credits.grant(fixture.allowlistedOrganizationId, { amount: 1_000, source: 'grant' });
      const free = await t.application.accounts.registerUser(
        enterpriseUser('free@analysis.example', { tier: 'free', organizationId: null }),
        operator,
      );
      assert.ok(free.ok);
      freeUser = free.value.userId;
      const freeKeyResult = await t.application.accounts.createKey(free.value.userId, 'free', operator);
      assert.ok(freeKeyResult.ok);
      freeKey = freeKeyResult.value.fullKey;
      await t.application.credits.grantToUser(free.value.userId, { amount: 1_000, source: 'grant' });
      const capped = await t.application.accounts.registerUser(
        enterpriseUser('capped@analysis.example', { organizationId: null, limitOverrides: { concurrentAnalyses: 1 } }),
        operator,
      );
      assert.ok(capped.ok);
      cappedAccount = capped.value.userId;
      const cappedKeyResult = await t.application.accounts.createKey(capped.value.userId, 'capped', operator);
      assert.ok(cappedKeyResult.ok);
      cappedKey = cappedKeyResult.value.fullKey;
      await t.application.credits.grantToUser(capped.value.userId, { amount: 1_000, source: 'grant' });

      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scInAbsSource, indexEntries, twinDocuments] });
      await storeJudgmentDocuments({ db: database.db, storage: t.documents, now: () => clock.now() });
      const local = new LocalExtractiveAnalyser();
      // The one analyser of this suite: the real local one, made to fail on request to exercise the reversal.
      const analyser: CaseAnalyser = {
        model: local.model,
        analyse: async (source, signal) => {
          if (failNext) throw new Error('the analyser broke (test)');
          if (failAttempts > 0) {
            failAttempts -= 1;
            throw new Error('the analyser is briefly unavailable (test)');
          }
          return local.analyse(source, signal);
        },
      };
      activities = createAnalysisActivities({
        runs: t.analysis.runs,
        cases: t.research.cases,
        documents: t.documents,
        analyser,
        remote: new HttpRemoteDocuments({ allowlist, timeoutMs: 5_000, maxBytes: 10_000_000, addresses: 'public-or-loopback' }),
        documentText: pdfText,
        scDocumentsBaseUrl: site.base,
      });
      worker = await temporal.startWorker(activities);
    });
    after(async () => {
      // `npm run history:record` saves these runs' histories for the replay test (test/int/workflow-replay.int.test.ts).
      try {
        if (process.env.RECORD_HISTORIES && factory.name === 'pglite') {
          await recordHistories(temporal, {
            'analysis-success': 'analysis-sc-inabs-5861-1',
            'analysis-remote-fetch': `analysis-${dtcCaseId}-1`,
            'analysis-retries': 'analysis-sc-inabs-415-1',
            'analysis-failure-reversal': 'analysis-sc-inabs-78-1',
            'consolidated-success': 'consolidated-' + (await t.research.cases.sourceOf('sc-inabs-5861'))!.caseNumberNormalised,
          });
        }
      } finally {
        await temporal.close();
        site.server.close();
        await database.close();
      }
    });

    describe('the security matrix', () => {
      // The gate's own plan list (Enterprise only) and a store that is down, on the same wiring.
      const matrix = () => {
        const gated = buildTestApp({ db: database.db, clock, workflows: temporal.workflows });
        return { app: gated.app, fixture, appWithIdentityDown: down.app };
      };
      securityMatrix({ method: 'GET', path: '/cases/sc-inabs-5861/analysis', okStatus: 200 }, matrix);
      securityMatrix({ method: 'POST', path: '/cases/sc-inabs-652/analyze-consolidated', body: { force: false }, okStatus: 200 }, matrix);
    });

    it('admits with 202, charges 100 at admission, and stores an analysis readable at 1 credit with hasAnalysis true', async () => {
      const { value: admitted, charged } = await costOf(() => call(fixture.keys.active, 'POST', '/cases/sc-inabs-5861/analyze'));
      assert.equal(admitted.res.status, 202, JSON.stringify(admitted.body));
      assert.equal(charged, 100);
      assert.equal(admitted.res.headers.get('retry-after'), '30');
      const data = admitted.body.data as Json;
      assert.equal(data.runId, 'analysis-sc-inabs-5861-1');
      assert.equal(data.status, 'running');

      const read = await analysisOf('sc-inabs-5861');
      const stored = read.data as Json;
      assert.equal(stored.hasAnalysis, true, JSON.stringify(read));
      assert.equal(stored.model, 'local-extractive-v1');
      const analysis = stored.analysis as Json;
      assert.ok(typeof analysis.summary === 'string' && analysis.summary.length > 50);
      assert.ok(Array.isArray(analysis.keyFacts));
      assert.match(String(analysis.disclaimer), /research aid/i);
      assert.equal(await cost(() => call(fixture.keys.active, 'GET', '/cases/sc-inabs-5861/analysis')), 1);
      const detail = await call(fixture.keys.active, 'GET', '/cases/sc-inabs-5861');
      assert.equal((detail.body.data as Json).hasAnalysis, true);
    });

    it('returns the stored analysis with alreadyExists true at the cache-hit price of 1; force re-runs as run 2', async () => {
      const hit = await costOf(() => call(fixture.keys.active, 'POST', '/cases/sc-inabs-5861/analyze', {}));
      assert.equal(hit.charged, 1);
      assert.equal(hit.value.res.status, 200);
      assert.equal((hit.value.body.data as Json).alreadyExists, true);
      const forced = await costOf(() => call(fixture.keys.active, 'POST', '/cases/sc-inabs-5861/analyze', { force: true }));
      assert.equal(forced.charged, 100);
      assert.equal(forced.value.res.status, 202);
      assert.equal((forced.value.body.data as Json).runId, 'analysis-sc-inabs-5861-2');
      assert.equal(await runEnded('analysis-sc-inabs-5861-2'), 'stored');
    });

    it('hasAnalysis false gives meta.note pointing to POST /cases/:id/analyze and is not charged', async () => {
      const { value: read, charged } = await costOf(() => call(fixture.keys.active, 'GET', '/cases/sc-inabs-78/analysis'));
      assert.equal(charged, 0);
      assert.equal(read.res.status, 200);
      assert.equal((read.body.data as Json).hasAnalysis, false);
      assert.match(String((read.body.meta as Json).note), /POST .*\/cases\/sc-inabs-78\/analyze/);
    });

    it('refuses the Free tier with 403 API_TIER_NOT_ALLOWED and an upgradeUrl, charging nothing (analyze, read, consolidated)', async () => {
      const freeAccount = (await t.application.credits.billingAccountForUser(freeUser))!;
      for (const [method, path] of [
        ['POST', '/cases/sc-inabs-5861/analyze'],
        ['GET', '/cases/sc-inabs-5861/analysis'],
        ['POST', '/cases/sc-inabs-5861/analyze-consolidated'],
      ] as const) {
        const { value: refused, charged } = await costOf(
          () => call(freeKey, method, path, method === 'POST' ? {} : undefined),
          freeAccount,
        );
        assert.equal(charged, 0);
        assert.equal(refused.res.status, 403, path);
        assert.equal(refused.body.code, 'API_TIER_NOT_ALLOWED');
        assert.equal(refused.body.upgradeUrl, TEST_UPGRADE_URL);
      }
    });

    it('refuses up front a case with no readable text or stored document (PDF_NOT_STORED with a hint), charging nothing', async () => {
      const { value: refused, charged } = await costOf(() => call(fixture.keys.active, 'POST', `/cases/${dtcCaseId}/analyze`, {}));
      assert.equal(charged, 0);
      assert.equal(refused.res.status, 404, JSON.stringify(refused.body));
      assert.equal(refused.body.code, 'PDF_NOT_STORED');
      assert.match(String(refused.body.hint), /allowRemoteFetch/);
    });

    it('refuses a host outside the allowlist with 403 REMOTE_FETCH_NOT_ALLOWED, whatever the tier, fetching and charging nothing', async () => {
      const strict = buildTestApp({
        db: database.db,
        clock,
        workflows: temporal.workflows,
        scDocumentsBaseUrl: site.base,
        entitledTiers: ['free', 'payg', 'enterprise'],
      });
      const before = site.requests.length;
      for (const key of [fixture.keys.active, freeKey]) {
        const res = await strict.app.request(`${BASE}/cases/${dtcCaseId}/analyze`, {
          method: 'POST',
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: JSON.stringify({ allowRemoteFetch: true }),
        });
        const body = (await res.json()) as Json;
        assert.equal(res.status, 403);
        assert.equal(body.code, 'REMOTE_FETCH_NOT_ALLOWED');
      }
      assert.equal(site.requests.length, before);
    });

    it('fetches the document from an allow-listed court host, charges 100 + 20, stores the PDF and the analysis', async () => {
      const before = await balance();
      const admitted = await call(fixture.keys.active, 'POST', `/cases/${dtcCaseId}/analyze`, { allowRemoteFetch: true });
      assert.equal(admitted.res.status, 202, JSON.stringify(admitted.body));
      assert.equal((admitted.body.meta as Json).remoteFetch, true);
      assert.equal((admitted.body.meta as Json).creditsCharged, 120);
      assert.equal(await runEnded(`analysis-${dtcCaseId}-1`), 'stored');
      assert.equal(before - (await balance()), 120);
      assert.ok(site.requests.includes(`/${DTC_PATH}`));
      // The surcharge is a charge of its own, kept: the fetch happened.
      const requestRef = admitted.res.headers.get('x-request-id')!;
      assert.deepEqual(await ledgerOf(`analysis-${dtcCaseId}-1`), [
        { type: 'CreditsCharged', chargeId: `analysis-${dtcCaseId}-1`, amount: 100, requestRef },
        { type: 'CreditsCharged', chargeId: `analysis-${dtcCaseId}-1:remote-fetch`, amount: 20, requestRef },
      ]);
      const read = await call(fixture.keys.active, 'GET', `/cases/${dtcCaseId}/analysis`);
      const analysis = (read.body.data as Json).analysis as Json;
      assert.match(String(analysis.summary), /./);
      const pdf = await call(fixture.keys.active, 'GET', `/cases/${dtcCaseId}/pdf`);
      assert.equal(pdf.res.status, 200, JSON.stringify(pdf.body));
      // A second run finds the document stored: no fetch, no surcharge.
      const fetches = site.requests.length;
      assert.equal(
        await cost(async () => {
          const again = await call(fixture.keys.active, 'POST', `/cases/${dtcCaseId}/analyze`, { force: true, allowRemoteFetch: true });
          assert.equal(again.res.status, 202);
          assert.equal(await runEnded(`analysis-${dtcCaseId}-2`), 'stored');
        }),
        100,
      );
      assert.equal(site.requests.length, fetches);
    });

    it('+20 only with remote fetch actually performed: a run that finds its document stored meanwhile gives the 20 back, once, and keeps 100', async () => {
      const caseId = `sc-${SARASWATI_DIARY}-19900904`;
      const runId = `analysis-${caseId}-1`;
      const before = await balance();
      const fetches = site.requests.length;
      // The run waits for a worker while its document is stored (as another run or a timeline fetch would store it).
      await worker.stop();
      let admitted: Awaited<ReturnType<typeof call>>;
      try {
        admitted = await call(fixture.keys.active, 'POST', `/cases/${caseId}/analyze`, { allowRemoteFetch: true });
        assert.equal(admitted.res.status, 202, JSON.stringify(admitted.body));
        assert.equal((admitted.body.meta as Json).remoteFetch, true);
        assert.equal((admitted.body.meta as Json).creditsCharged, 120);
        assert.equal(before - (await balance()), 120);
        await t.documents.put(judgmentKey(caseId), dtcPdf, 'application/pdf');
      } finally {
        worker = await temporal.startWorker(activities);
      }
      assert.equal(await runEnded(runId), 'stored');
      assert.equal(site.requests.length, fetches, 'nothing was fetched');
      assert.equal(before - (await balance()), 100);
      const requestRef = admitted.res.headers.get('x-request-id')!;
      const charges = [
        { type: 'CreditsCharged', chargeId: runId, amount: 100, requestRef },
        { type: 'CreditsCharged', chargeId: `${runId}:remote-fetch`, amount: 20, requestRef },
        { type: 'ChargeReversed', chargeId: `${runId}:remote-fetch`, amount: 20 },
      ];
      assert.deepEqual(await ledgerOf(runId), charges);
      // A retried store or a late failure (an activity retried after a worker died) gives nothing back again.
      const stored = (await t.analysis.requests.stored(caseId))!;
      await t.analysis.runs.store(runId, { model: stored.model, caseIds: [caseId], analysis: stored.analysis });
      assert.equal(await t.analysis.runs.fail(runId, 'a late failure (test)'), 'stored');
      assert.deepEqual(await ledgerOf(runId), charges);
      assert.equal(before - (await balance()), 100);
      const report = await reconcileLedger(
        { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
        {},
      );
      assert.deepEqual(report.differences, []);
    });

    it('reverses the admission charge when the run fails, as a ChargeReversed event in the ledger', async () => {
      failNext = true;
      try {
        const before = await balance();
        const admitted = await call(fixture.keys.active, 'POST', '/cases/sc-inabs-78/analyze', {});
        assert.equal(admitted.res.status, 202);
        assert.equal(before - (await balance()), 100);
        assert.equal(await runEnded('analysis-sc-inabs-78-1'), 'failed');
        assert.equal(await balance(), before);
        const reversed = await database.db.selectFrom('events').select(['type', 'data']).where('type', '=', 'ChargeReversed').execute();
        assert.ok(reversed.some((e) => (e.data as Json).chargeId === 'analysis-sc-inabs-78-1'));
        const read = await call(fixture.keys.active, 'GET', '/cases/sc-inabs-78/analysis');
        const latest = (read.body.meta as Json).latestRun as Json;
        assert.equal(latest.status, 'failed');
        assert.equal((read.body.data as Json).hasAnalysis, false);
        // The customer is told a documented code and its message; the analyser's own words stay with the operator.
        assert.deepEqual([latest.failureCode, latest.failure], ['ANALYSIS_FAILED', ANALYSIS_FAILURES.ANALYSIS_FAILED]);
        assert.doesNotMatch(JSON.stringify(read.body), /analyser broke/);
        const row = await database.db
          .selectFrom('analysisRuns')
          .select('failure')
          .where('runId', '=', 'analysis-sc-inabs-78-1')
          .executeTakeFirstOrThrow();
        assert.match(row.failure ?? '', /the analyser broke \(test\)/);
      } finally {
        failNext = false;
      }
    });

    it('retries a briefly failing analyser and stores the result on a later attempt, charged once', async () => {
      failAttempts = 2;
      const charged = await cost(async () => {
        const admitted = await call(fixture.keys.active, 'POST', '/cases/sc-inabs-415/analyze', {});
        assert.equal(admitted.res.status, 202);
        assert.equal(await runEnded('analysis-sc-inabs-415-1'), 'stored');
      });
      assert.equal(failAttempts, 0);
      assert.equal(charged, 100);
    });

    it('caps concurrent analyses per account with 429 CONCURRENT_ANALYSIS_LIMIT and Retry-After 30, charging the refused call nothing', async () => {
      const results = await Promise.all(
        ['sc-inabs-232', 'sc-inabs-266', 'sc-inabs-314'].map((id) => call(cappedKey, 'POST', `/cases/${id}/analyze`, {})),
      );
      const statuses = results.map((r) => r.res.status).sort();
      assert.ok(statuses.includes(429), JSON.stringify(statuses));
      assert.ok(statuses.includes(202));
      const refused = results.find((r) => r.res.status === 429)!;
      assert.equal(refused.body.code, 'CONCURRENT_ANALYSIS_LIMIT');
      assert.equal(refused.res.headers.get('retry-after'), '30');
      const admitted = results.filter((r) => r.res.status === 202).length;
      const account = (await t.application.credits.billingAccountForUser(cappedAccount))!;
      assert.equal(await balance(account), 1_000 - 100 * admitted);
    });

    it('consolidated analysis answers synchronously at 400 credits, then 1 with alreadyExists', async () => {
      const first = await costOf(() => call(fixture.keys.active, 'POST', '/cases/sc-inabs-5861/analyze-consolidated', {}));
      assert.equal(first.charged, 400);
      assert.equal(first.value.res.status, 200, JSON.stringify(first.value.body).slice(0, 400));
      const data = first.value.body.data as Json;
      assert.equal(data.alreadyExists, false);
      assert.deepEqual(data.documents, ['sc-inabs-5861']);
      const second = await costOf(() => call(fixture.keys.active, 'POST', '/cases/sc-inabs-5861/analyze-consolidated', {}));
      assert.equal(second.charged, 1);
      assert.equal((second.value.body.data as Json).alreadyExists, true);
    });

    it('CASE_RESTRICTED: a consolidated analysis asked through an open sibling leaves the restricted document out, its id and its text', async () => {
      const [open, withheld] = TWINS.restrictedFirst.docs.map(twinId) as [string, string];
      assert.ok((await t.application.cases.restrict(withheld, operator)).ok);
      const first = await costOf(() => call(fixture.keys.active, 'POST', `/cases/${open}/analyze-consolidated`, {}));
      assert.equal(first.value.res.status, 200, JSON.stringify(first.value.body).slice(0, 400));
      assert.equal(first.charged, 400);
      const data = first.value.body.data as Json;
      assert.deepEqual(data.documents, [open]);
      await assertWithout(first.value.body, open, withheld);
      // Asked by the case number, the stored analysis is the same one, at the cache-hit price.
      const byNumber = await costOf(() =>
        call(fixture.keys.active, 'POST', `/cases/${encodeURIComponent(TWINS.restrictedFirst.caseNumber)}/analyze-consolidated`, {}),
      );
      assert.equal(byNumber.charged, 1);
      assert.deepEqual((byNumber.value.body.data as Json).documents, [open]);
      await assertWithout(byNumber.value.body, open, withheld);
    });

    it('CASE_RESTRICTED: a stored consolidated analysis covering a document restricted since is not served; the model runs again without it', async () => {
      const [open, withheld] = TWINS.restrictedLater.docs.map(twinId) as [string, string];
      const both = await costOf(() => call(fixture.keys.active, 'POST', `/cases/${open}/analyze-consolidated`, {}));
      assert.equal(both.value.res.status, 200, JSON.stringify(both.value.body).slice(0, 400));
      assert.deepEqual([...((both.value.body.data as Json).documents as string[])].sort(), [open, withheld].sort());

      assert.ok((await t.application.cases.restrict(withheld, operator)).ok);
      // Not a cache hit: nothing stored may be served, so this caller gets (and pays for) a new analysis without it.
      const rerun = await costOf(() => call(fixture.keys.active, 'POST', `/cases/${open}/analyze-consolidated`, {}));
      assert.equal(rerun.value.res.status, 200, JSON.stringify(rerun.value.body).slice(0, 400));
      assert.equal(rerun.charged, 400);
      assert.equal((rerun.value.body.data as Json).alreadyExists, false);
      assert.deepEqual((rerun.value.body.data as Json).documents, [open]);
      await assertWithout(rerun.value.body, open, withheld);
      // The new analysis replaced the stale one: the next call is a cache hit without the restricted document.
      const hit = await costOf(() => call(fixture.keys.active, 'POST', `/cases/${open}/analyze-consolidated`, {}));
      assert.equal(hit.charged, 1);
      assert.equal((hit.value.body.data as Json).alreadyExists, true);
      await assertWithout(hit.value.body, open, withheld);
      const row = await database.db
        .selectFrom('consolidatedAnalyses')
        .select('caseIds')
        .where('caseNumberNormalised', '=', normaliseCaseNumber(TWINS.restrictedLater.caseNumber))
        .executeTakeFirstOrThrow();
      assert.deepEqual(row.caseIds, [open]);
    });

    it('CASE_RESTRICTED: a consolidated result covering a document restricted while the run analysed it is not stored', async () => {
      const [open, withheld] = TWINS.restrictedLater.docs.map(twinId) as [string, string];
      const admitted = await t.analysis.runs.admit({
        subject: { kind: 'consolidated', caseId: open, caseNumberNormalised: normaliseCaseNumber(TWINS.restrictedLater.caseNumber) },
        accountId: fixture.organizationId,
        requestId: 'restricted-while-running',
        price: 400,
        payment: { kind: 'reserve', holdForMs: 600_000 },
        allowRemoteFetch: false,
        remoteFetchPlanned: false,
        concurrencyCap: null,
      });
      assert.ok(admitted.ok);
      const stale = { model: 'local-extractive-v1', caseIds: [open, withheld], analysis: {} };
      await assert.rejects(t.analysis.runs.store(admitted.runId, stale), CoversRestrictedError);
      assert.equal(await t.analysis.runs.fail(admitted.runId, 'test over'), 'failed');
    });

    it('reconciles: every run charge is tied to its audited request, refunds included, and the read models equal the ledger', async () => {
      const report = await reconcileLedger(
        { db: database.db, events: eventStoreOf(database.db), analytics: null, analyticsUnavailable: 'not used in this test' },
        {},
      );
      assert.deepEqual(report.differences, []);
      assert.ok(report.checked.chargedRequests > 10);
    });

    it('replays an analyze call with the same Idempotency-Key without a second charge or run', async () => {
      const headers = { 'Idempotency-Key': 'analyze-once-102' };
      const body = { force: true };
      const { value: calls, charged } = await costOf(async () => {
        const first = await call(fixture.keys.active, 'POST', '/cases/sc-inabs-362/analyze', body, headers);
        return { first, replay: await call(fixture.keys.active, 'POST', '/cases/sc-inabs-362/analyze', body, headers) };
      });
      assert.equal(calls.first.res.status, 202);
      assert.equal(calls.replay.res.status, 202);
      assert.equal(calls.replay.res.headers.get('idempotency-replayed'), 'true');
      assert.deepEqual(calls.replay.body, calls.first.body);
      assert.equal(charged, 100);
      const reused = await call(fixture.keys.active, 'POST', '/cases/sc-inabs-362/analyze', { force: false }, headers);
      assert.equal(reused.res.status, 409);
      assert.equal(reused.body.code, 'IDEMPOTENCY_KEY_REUSED');
    });

    it('a retry that takes over a dead analyze call answers with the run it admitted, stored since: 202, charged once, no cache hit', async () => {
      const caseId = 'sc-inabs-362';
      const body = { force: false };
      const key = 'analyze-dead-instance';
      const deadCall = 'req-dead-analyze';
      const auth = await t.application.authenticator.authenticate(fixture.keys.active);
      assert.ok(auth.ok);
      // What an instance killed after admitting leaves: the started record, the run it paid for (which goes on and stores).
      const print = await requestFingerprint('POST', `${BASE}/cases/${caseId}/analyze`, JSON.stringify(body));
      assert.deepEqual(await t.application.idempotency.begin(auth.principal.keyId, key, print, deadCall), {
        kind: 'proceed',
        callId: deadCall,
      });
      const caseNumberNormalised = (await t.research.cases.sourceOf(caseId))!.caseNumberNormalised;
      const { value: admitted, charged } = await costOf(() =>
        t.analysis.runs.admit({
          subject: { kind: 'single', caseId, caseNumberNormalised },
          accountId: fixture.organizationId,
          requestId: deadCall,
          price: 100,
          payment: { kind: 'charge' },
          allowRemoteFetch: false,
          remoteFetchPlanned: false,
          concurrencyCap: null,
        }),
      );
      assert.ok(admitted.ok);
      assert.equal(charged, 100);
      await temporal.workflows.startAnalysis(admitted.runId, { accountId: fixture.organizationId });
      assert.equal(await runEnded(admitted.runId), 'stored');

      clock.advanceSeconds(IDEMPOTENCY_LEASE_MS / 1000);
      const retry = await costOf(() => call(fixture.keys.active, 'POST', `/cases/${caseId}/analyze`, body, { 'Idempotency-Key': key }));
      assert.equal(
        retry.value.res.status,
        202,
        String(retry.value.body.code ?? (retry.value.body.meta as Json | undefined)?.creditsCharged),
      );
      assert.equal((retry.value.body.data as Json).runId, admitted.runId);
      assert.equal(retry.charged, 0, 'the dead call paid for the run; the retry adds nothing');
      assert.deepEqual(
        (await ledgerOf(admitted.runId)).map((e) => [e.type, e.amount]),
        [['CreditsCharged', 100]],
      );
    });
  });
