/**
 * Analysis texts carry the caller's watermark, on both databases: a stored analysis of a
 * real judgment (made by the local analyser and stored through the run commands, as the
 * worker stores it) read through GET /cases/:id/analysis, the analyze cache hit and the
 * consolidated cache hit by two billing accounts. The copies differ only by the mark:
 * identifiers, paragraph references, cited cases and citations are byte-identical and
 * the prose reads the same once the marks are folded away; the stored analysis stays
 * clean; `court-records admin watermark trace` names the account from a saved response
 * or from a leaked summary alone; an idempotent replay is byte-identical for its caller.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalExtractiveAnalyser } from '../../src/adapters/llm/local-extractive-analyser.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { billingAccountOf } from '../../src/application/credits/credits-service.ts';
import { runWatermark } from '../../src/cli/watermark.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import type { CorpusSource } from '../../src/corpus/sources/source.ts';
import type { CaseAnalysis } from '../../src/domain/analysis/case-analysis.ts';
import { consolidate } from '../../src/domain/analysis/consolidate.ts';
import { watermarkProse } from '../../src/domain/analysis/watermark-prose.ts';
import { foldHomoglyphs, stripZeroWidthMarks } from '../../src/domain/watermark/alphabet.ts';
import { createAccessFixture, keyedUser, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, KEY_HASH_SECRET, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

type Json = Record<string, unknown>;

/** A judgment whose analysis has issues and cited cases with parsed citations. */
const CASE_ID = 'sc-inabs-690';

const oneJudgment: CorpusSource = {
  ...scInAbsSource,
  async *read(ctx) {
    for await (const result of scInAbsSource.read(ctx)) if ('ok' in result && result.ok.caseId === CASE_ID) yield result;
  },
};

/** Every string of a JSON value with the watermark folded away (homoglyphs back to Latin, zero-width marks dropped). */
function unmarked(value: unknown): unknown {
  if (typeof value === 'string') return foldHomoglyphs(stripZeroWidthMarks(value));
  if (Array.isArray(value)) return value.map(unmarked);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unmarked(v)]));
  return value;
}

/** The analysis with its prose blanked: what every caller must receive byte for byte. */
const nonProse = (analysis: unknown) => watermarkProse(analysis as CaseAnalysis, () => '');

for (const factory of databases)
  describe(`analysis texts are watermarked per account (${factory.name})`, () => {
    let database: TestDatabase;
    let t: TestApp;
    let fixture: AccessFixture;
    let solo: { userId: string; key: string };
    let dir: string;
    let stored: CaseAnalysis;
    const clock = new SettableClock(new Date());

    const call = async (key: string, method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}) => {
      const res = await t.app.request(`${BASE}${path}`, {
        method,
        headers: { 'X-API-Key': key, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}), ...headers },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text.slice(0, 300));
      return { res, text, body: JSON.parse(text) as Json };
    };
    const analysisOf = (body: Json) => (body.data as Json).analysis as Json;

    async function trace(text: string): Promise<{ code: number; printed: Json }> {
      const file = join(dir, `leak-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, text);
      let stdout = '';
      const code = await runWatermark(['trace', file], {
        stdout: { write: (chunk: string) => (stdout += chunk) },
        stderr: { write: () => true },
        env: {},
        open: async () => ({ ...database, close: async () => undefined }),
        secret: KEY_HASH_SECRET,
      });
      return { code, printed: JSON.parse(stdout) as Json };
    }

    /** Two accounts' copies of one answer: unequal, equal once unmarked, equal byte for byte outside the prose, each traced to its account. */
    async function assertMarkedPerAccount(path: string, method: 'GET' | 'POST', expected: unknown) {
      const firm = await call(fixture.keys.active, method, path);
      const own = await call(solo.key, method, path);
      assert.notEqual(firm.text, own.text);
      assert.deepEqual(unmarked(firm.body.data), unmarked(own.body.data));
      assert.deepEqual(unmarked(analysisOf(firm.body)), expected);
      for (const copy of [firm, own]) {
        assert.deepEqual(nonProse(analysisOf(copy.body)), nonProse(expected));
        const data = copy.body.data as Json;
        assert.equal(data.caseId, CASE_ID);
        assert.deepEqual(data.documents, [CASE_ID]);
      }
      const tracedFirm = await trace(firm.text);
      assert.equal(tracedFirm.code, 0, JSON.stringify(tracedFirm.printed));
      assert.equal(tracedFirm.printed.accountId, fixture.organizationId);
      const tracedSolo = await trace(own.text);
      assert.equal(tracedSolo.code, 0, JSON.stringify(tracedSolo.printed));
      assert.equal(tracedSolo.printed.accountId, billingAccountOf({ userId: solo.userId, organizationId: null }));
      return { firm, own };
    }

    before(async () => {
      database = await factory.open();
      dir = mkdtempSync(join(tmpdir(), 'analysis-watermark-'));
      t = buildTestApp({ db: database.db, clock, index: new PostgresSearchIndex(database.db) });
      fixture = await createAccessFixture(t.application.accounts, clock);
      solo = await keyedUser(t.application.accounts, 'solo-reader');
      await t.application.credits.grant(fixture.organizationId, { amount: 10_000, source: 'grant' });
      await t.application.credits.grantToUser(solo.userId, { amount: 10_000, source: 'grant' });
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [oneJudgment] });

      // Stored as the worker stores runs: admitted, analysed by the local analyser, stored through the run commands.
      const lookup = await t.research.cases.lookup(CASE_ID);
      assert.ok('found' in lookup);
      const view = lookup.found;
      stored = await new LocalExtractiveAnalyser().analyse({
        caseId: view.caseId,
        caseNumber: view.caseNumber,
        title: view.title,
        courtName: view.court.name,
        decisionDate: view.decisionDate,
        text: view.text!,
      });
      const caseNumberNormalised = (await t.research.cases.sourceOf(CASE_ID))!.caseNumberNormalised;
      const common = { accountId: fixture.organizationId, allowRemoteFetch: false, remoteFetchPlanned: false, concurrencyCap: null };
      const single = await t.analysis.runs.admit({
        ...common,
        subject: { kind: 'single', caseId: CASE_ID, caseNumberNormalised },
        requestId: 'seed-single',
        price: 100,
        payment: { kind: 'charge' },
      });
      assert.ok(single.ok);
      await t.analysis.runs.store(single.runId, { model: stored.model, caseIds: [CASE_ID], analysis: stored });
      const consolidated = await t.analysis.runs.admit({
        ...common,
        subject: { kind: 'consolidated', caseId: CASE_ID, caseNumberNormalised },
        requestId: 'seed-consolidated',
        price: 400,
        payment: { kind: 'reserve', holdForMs: 600_000 },
      });
      assert.ok(consolidated.ok);
      const merged = consolidate([{ caseId: CASE_ID, analysis: stored }]);
      await t.analysis.runs.store(consolidated.runId, { model: merged.model, caseIds: [CASE_ID], analysis: merged });
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await database.close();
    });

    it('GET /cases/:id/analysis: two accounts’ copies differ only by the watermark, each tracing to its account; ids and citations unchanged', async () => {
      assert.ok(
        Object.values(stored.citedCases).some((list) => list.some((c) => c.citations.length > 0)),
        'the judgment cites reports',
      );
      assert.ok(stored.issues.length > 0);
      await assertMarkedPerAccount(`/cases/${CASE_ID}/analysis`, 'GET', stored);
    });

    it('POST /cases/:id/analyze (cache hit) and /analyze-consolidated (cache hit) are watermarked the same way', async () => {
      const merged = consolidate([{ caseId: CASE_ID, analysis: stored }]);
      const hit = await assertMarkedPerAccount(`/cases/${CASE_ID}/analyze`, 'POST', stored);
      assert.equal((hit.firm.body.data as Json).alreadyExists, true);
      const consolidated = await assertMarkedPerAccount(`/cases/${CASE_ID}/analyze-consolidated`, 'POST', unmarked(merged));
      assert.equal((consolidated.firm.body.data as Json).alreadyExists, true);
    });

    it('a leaked summary alone names the account it was served to', async () => {
      const { body } = await call(solo.key, 'GET', `/cases/${CASE_ID}/analysis`);
      const leaked = String(analysisOf(body).detailedSummary);
      assert.ok(leaked.length >= 200, String(leaked.length));
      const { code, printed } = await trace(leaked);
      assert.equal(code, 0, JSON.stringify(printed));
      assert.equal(printed.accountId, solo.userId);
    });

    it('keeps the stored analysis clean: the watermark is added as the answer leaves', async () => {
      const row = await database.db.selectFrom('caseAnalyses').select('analysis').where('caseId', '=', CASE_ID).executeTakeFirstOrThrow();
      assert.deepEqual(row.analysis, unmarked(row.analysis));
      assert.deepEqual(row.analysis, JSON.parse(JSON.stringify(stored)));
    });

    it('replays an idempotent call byte for byte for its caller, and a fresh call answers the same bytes', async () => {
      const headers = { 'Idempotency-Key': 'watermark-replay-1' };
      const first = await call(fixture.keys.active, 'POST', `/cases/${CASE_ID}/analyze-consolidated`, headers);
      const replay = await call(fixture.keys.active, 'POST', `/cases/${CASE_ID}/analyze-consolidated`, headers);
      assert.equal(replay.res.headers.get('idempotency-replayed'), 'true');
      assert.equal(replay.text, first.text);
      // The mark is a function of the account and the text: a fresh call makes the same bytes.
      const again = await call(fixture.keys.active, 'POST', `/cases/${CASE_ID}/analyze-consolidated`);
      assert.equal(again.text, first.text);
    });
  });
