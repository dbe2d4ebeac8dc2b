/**
 * The research routes end to end through the real app on both databases: keyword search,
 * judge lookup, case detail and PDF links over real records (the Supreme Court judgment
 * texts and the eCourts High Court records, ingested, projected into the PostgreSQL
 * full-text index and rendered to stored PDFs). Every charged call is checked against the
 * ledger: charged exactly its price on success, nothing on any error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decryptPdfLink } from '../../src/http/pdf-link-cipher.ts';
import { watermarkTagger } from '../../src/adapters/crypto/watermark-tag.ts';
import { PostgresSearchIndex } from '../../src/adapters/postgres/search-index.ts';
import { listBillingAccounts, traceExtract } from '../../src/application/watermark/trace.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { storeJudgmentDocuments } from '../../src/corpus/store-documents.ts';
import { ecourtsHcSource } from '../../src/corpus/sources/ecourts-hc.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { foldHomoglyphs, stripZeroWidthMarks } from '../../src/domain/watermark/alphabet.ts';
import type { AnalysisWorkflows } from '../../src/ports/analysis-workflows.ts';
import { SearchIndexProjector } from '../../src/projections/search-index-projector.ts';
import { createAccessFixture, enterpriseUser, type AccessFixture } from '../support/access-fixture.ts';
import { BASE, buildTestApp, KEY_HASH_SECRET, SettableClock, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases } from '../support/databases.ts';
import { securityMatrix } from '../support/security-matrix.ts';
import { openPglite } from '../../src/db/open.ts';

const operator = { kind: 'operator' } as const;

/** An engine that takes every analysis start and runs nothing. */
const startsNothing: AnalysisWorkflows = {
  available: true,
  startAnalysis: () => Promise.resolve('started'),
  startConsolidated: () => Promise.reject(new Error('no consolidated run in the research matrix')),
  analysisState: () => Promise.resolve('running'),
};
type Json = Record<string, unknown>;

for (const factory of databases)
  describe(`research routes on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: OpenedDatabase;
    let t: TestApp;
    let fixture: AccessFixture;
    let cappedKey: string;
    let down: TestApp;
    const clock = new SettableClock(new Date('2026-11-20T10:00:00Z'));

    const call = async (key: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
      const res = await t.app.request(`${BASE}${path}`, {
        method,
        headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      return { res, body: (await res.json()) as Json };
    };
    const search = (body: unknown, key = fixture.keys.active) => call(key, 'POST', '/search/cases', body);
    const balance = async () => (await t.application.credits.balance(fixture.organizationId)).balance;

    /** Runs `work` and returns what it cost the organisation. */
    async function cost(work: () => Promise<unknown>): Promise<number> {
      const before = await balance();
      await work();
      return before - (await balance());
    }

    before(async () => {
      database = await factory.open();
      const index = new PostgresSearchIndex(database.db);
      t = buildTestApp({ db: database.db, clock, index });
      fixture = await createAccessFixture(t.application.accounts, clock);
      await t.application.credits.grant(fixture.organizationId, { amount: 100_000, source: 'grant' });
      await t.application.credits.grant(fixture.allowlistedOrganizationId, { amount: 1_000, source: 'grant' });
      const closed = await openPglite(undefined);
      await closed.close();
      down = buildTestApp({ db: closed.db, clock });
      const capped = await t.application.accounts.registerUser(
        enterpriseUser('capped@lawfirm.example', {
          organizationId: fixture.organizationId,
          limitOverrides: { distinctCaseDetailsPerDay: 2, pdfLinksPerMonth: 1, maxPageSize: 10, paginationDepth: 30 },
        }),
        operator,
      );
      assert.ok(capped.ok);
      const key = await t.application.accounts.createKey(capped.value.userId, 'capped', operator);
      assert.ok(key.ok);
      cappedKey = key.value.fullKey;
      await ingestCorpus({ db: database.db, corpusDir, now: () => clock.now(), sources: [scIk50Source, scInAbsSource, ecourtsHcSource] });
      await new SearchIndexProjector(database.db, index, { kind: database.kind, now: () => clock.now() }).catchUp();
      await storeJudgmentDocuments({ db: database.db, storage: t.research.documents, now: () => clock.now() });
    });
    after(async () => {
      await database.close();
    });

    const matrix = () => ({
      app: t.app,
      fixture,
      appWithIdentityDown: down.app,
      balanceOf: async (account: string) => (await t.application.credits.balance(account)).balance,
    });
    describe('the security matrix on every research route', () => {
      securityMatrix({ method: 'POST', path: '/search/cases', body: { query: 'appeal' }, okStatus: 200, price: 5 }, matrix);
      securityMatrix({ method: 'GET', path: '/judges/search?q=singh', okStatus: 200, price: 1 }, matrix);
      securityMatrix({ method: 'GET', path: '/cases/sc-inabs-5861', okStatus: 200, price: 1 }, matrix);
      securityMatrix({ method: 'GET', path: '/cases/sc-inabs-5861/pdf', okStatus: 200, price: 5 }, matrix);
      securityMatrix({ method: 'POST', path: '/search/cases/semantic', body: { query: 'appeal' }, okStatus: 200, price: 10 }, matrix);
      // The gate is the subject here, not the run: an engine that accepts starts and runs nothing keeps the rows fast and apart.
      const admitting = () => {
        const gated = buildTestApp({ db: database.db, clock, index: new PostgresSearchIndex(database.db), workflows: startsNothing });
        return { ...matrix(), app: gated.app };
      };
      securityMatrix({ method: 'POST', path: '/cases/sc-inabs-5861/analyze', body: {}, okStatus: 202, price: 100 }, admitting);
    });

    describe('POST /search/cases', () => {
      it('finds a case by a case number printed another way, and charges 5 credits', async () => {
        let found: Json = {};
        const charged = await cost(async () => {
          found = (await search({ query: 'C.A. 56/1987' })).body;
        });
        assert.equal(charged, 5);
        const data = found.data as Json[];
        assert.equal(data[0]?.caseId, 'sc-inabs-5861', JSON.stringify(found).slice(0, 500));
      });

      it('echoes only applied filters: practiceArea stripped, caseNumber echoed but inert, judges alias, date ranks by relevance', async () => {
        const { res, body } = await search({
          query: 'appeal',
          practiceArea: 'tax',
          caseNumber: 'W.P. 1/2020',
          judges: ['SANJAY DHAR'],
          judge: ['NOT USED'],
          court: 'High Court of Jammu and Kashmir, Supreme Court',
          year: ['2024', 2023],
          sortBy: 'date',
        });
        assert.equal(res.status, 200, JSON.stringify(body));
        const meta = body.meta as Json;
        assert.deepEqual(meta.filters, {
          court: ['Jammu & Kashmir and Ladakh High Court', 'Supreme Court of India'],
          year: [2023, 2024],
          judgeName: ['SANJAY DHAR'],
          caseNumber: ['W.P. 1/2020'],
        });
        assert.equal(meta.sortBy, 'relevance');
        for (const item of body.data as Json[]) assert.ok((item.judges as string[]).includes('SANJAY DHAR'));
      });

      it('a case-type label finds judgment texts whose header prints the long form', async () => {
        const { body } = await search({ query: 'C.A. 56/1987', caseType: 'Civil Appeal' });
        assert.deepEqual(((body.meta as Json).filters as Json).caseType, ['C.A.', 'CIA']);
        assert.equal((body.data as Json[])[0]?.caseId, 'sc-inabs-5861');
      });

      it('sorts recent and oldest by decision date', async () => {
        const dates = async (sortBy: string) =>
          ((await search({ query: 'court', sortBy, limit: 10 })).body.data as Json[]).map((d) => d.decisionDate).filter((d) => d !== null);
        const recent = await dates('recent');
        const oldest = await dates('oldest');
        assert.ok(recent.length > 1 && oldest.length > 1);
        assert.deepEqual(recent, [...recent].sort().reverse());
        assert.deepEqual(oldest, [...oldest].sort());
      });

      it('pages with signed cursors bound to the query and filters', async () => {
        const first = await search({ query: 'court', limit: 2 });
        const cursor = (first.body.pagination as Json).nextCursor as string;
        assert.equal(typeof cursor, 'string');
        const second = await search({ query: 'court', limit: 2, searchAfter: cursor });
        assert.equal((second.body.pagination as Json).offset, 2);
        const firstIds = (first.body.data as Json[]).map((d) => d.caseId);
        for (const d of second.body.data as Json[]) assert.ok(!firstIds.includes(d.caseId));
        const charged = await cost(async () => {
          const other = await search({ query: 'appeal', limit: 2, searchAfter: cursor });
          assert.equal(other.body.code, 'CURSOR_INVALID');
          const forged = await search({ query: 'court', limit: 2, searchAfter: `${cursor.slice(0, -2)}AA` });
          assert.equal(forged.body.code, 'CURSOR_INVALID');
        });
        assert.equal(charged, 0);
      });

      it('refuses bad input with the spec codes and charges nothing', async () => {
        const charged = await cost(async () => {
          const page = await search({ query: 'x', page: '2' });
          assert.equal(page.res.status, 400);
          assert.equal(page.body.code, 'VALIDATION_ERROR');
          assert.ok((page.body.details as string[]).includes('page: expected number, received string'), JSON.stringify(page.body));
          assert.equal((await search({ query: '   ' })).body.code, 'VALIDATION_ERROR');
          assert.equal((await search({ query: 'x', fromDate: '01-02-2020' })).body.code, 'VALIDATION_ERROR');
          assert.equal((await search({ query: 'x', year: 1900 })).body.code, 'VALIDATION_ERROR');
          assert.equal((await search({ query: 'x', court: 'Court of Narnia' })).body.code, 'VALIDATION_ERROR');
          assert.equal((await search({ query: 'x', limit: 101 })).body.code, 'PAGE_LIMIT_EXCEEDED');
          assert.equal((await search({ query: 'x', page: 101, limit: 100 })).body.code, 'PAGINATION_DEPTH_EXCEEDED');
          assert.equal((await search({ query: 'x', limit: 11 }, cappedKey)).body.code, 'PAGE_LIMIT_EXCEEDED');
          assert.equal((await search({ query: 'x', page: 4, limit: 10 }, cappedKey)).body.code, 'PAGINATION_DEPTH_EXCEEDED');
          assert.equal((await search('{"query":')).body.code, 'MALFORMED_JSON');
        });
        assert.equal(charged, 0);
      });

      it('a 402 carries required, balance, shortfall and topUpUrl, and charges nothing', async () => {
        const account = fixture.users.noOrg;
        const before = (await t.application.credits.balance(account)).balance;
        await t.application.credits.grant(account, { amount: 3, source: 'grant' });
        const { res, body } = await search({ query: 'appeal' }, fixture.keys.noOrg);
        assert.equal(res.status, 402);
        assert.deepEqual([body.code, body.required, body.balance, body.shortfall], ['INSUFFICIENT_API_CREDITS', 5, before + 3, 2 - before]);
        assert.equal(body.topUpUrl, 'https://billing.test/top-up');
        assert.equal((await t.application.credits.balance(account)).balance, before + 3);
      });
    });

    describe('GET /cases/:id', () => {
      it('answers by id with watermarked text that traces back to the account, for 1 credit', async () => {
        let body: Json = {};
        const charged = await cost(async () => {
          body = (await call(fixture.keys.active, 'GET', '/cases/sc-inabs-5861')).body;
        });
        assert.equal(charged, 1);
        const data = body.data as Json;
        assert.deepEqual([data.caseId, data.caseNumber, data.hasAnalysis], ['sc-inabs-5861', 'Civil Appeal No. 56 of 1987', false]);
        const raw = await database.db.selectFrom('cases').select('text').where('caseId', '=', 'sc-inabs-5861').executeTakeFirstOrThrow();
        const text = data.text as string;
        assert.notEqual(text, raw.text);
        assert.equal(foldHomoglyphs(stripZeroWidthMarks(text)), raw.text);
        const traced = traceExtract(text.slice(1000, 1600), await listBillingAccounts(database.db), watermarkTagger(KEY_HASH_SECRET));
        assert.ok(traced.found && traced.account.accountId === fixture.organizationId, JSON.stringify(traced.found));
      });

      it('answers by a case number in another printed form', async () => {
        const { res, body } = await call(fixture.keys.active, 'GET', `/cases/${encodeURIComponent('CA 56/1987')}`);
        assert.equal(res.status, 200);
        assert.equal((body.data as Json).caseId, 'sc-inabs-5861');
      });

      it('CASE_NOT_FOUND and CASE_RESTRICTED are not charged, and a restricted case leaves every result', async () => {
        const restricted = await database.db
          .selectFrom('cases')
          .select(['caseId', 'caseNumber'])
          .where('source', '=', 'sc-judgments-text-ik50')
          .orderBy('caseId')
          .executeTakeFirstOrThrow();
        const restriction = await t.application.cases.restrict(restricted.caseId, operator);
        assert.ok(restriction.ok);
        const charged = await cost(async () => {
          const missing = await call(fixture.keys.active, 'GET', '/cases/no-such-case-anywhere');
          assert.deepEqual([missing.res.status, missing.body.code], [404, 'CASE_NOT_FOUND']);
          const gone = await call(fixture.keys.active, 'GET', `/cases/${encodeURIComponent(restricted.caseId)}`);
          assert.deepEqual([gone.res.status, gone.body.code], [403, 'CASE_RESTRICTED']);
          const pdf = await call(fixture.keys.active, 'GET', `/cases/${encodeURIComponent(restricted.caseId)}/pdf`);
          assert.deepEqual([pdf.res.status, pdf.body.code], [403, 'CASE_RESTRICTED']);
        });
        assert.equal(charged, 0);
        // Before the index hears of it, the case store still keeps it out of results.
        const found = await search({ query: restricted.caseNumber });
        assert.ok(!(found.body.data as Json[]).some((d) => d.caseId === restricted.caseId));
        assert.equal((found.body.meta as Json).someRecordsWithheld, true);
      });

      it('counts distinct cases per day: re-reading is free of the cap, a third case is refused uncharged', async () => {
        const ids = (
          await database.db
            .selectFrom('cases')
            .select('caseId')
            .where('source', '=', 'ecourts-hc-case-status')
            .orderBy('caseId')
            .limit(3)
            .execute()
        ).map((r) => r.caseId);
        const read = (id: string) => call(cappedKey, 'GET', `/cases/${encodeURIComponent(id)}`);
        assert.equal((await read(ids[0]!)).res.status, 200);
        assert.equal((await read(ids[1]!)).res.status, 200);
        assert.equal((await read(ids[0]!)).res.status, 200);
        const charged = await cost(async () => {
          const third = await read(ids[2]!);
          assert.deepEqual([third.res.status, third.body.code], [429, 'DISTINCT_CASES_LIMIT_REACHED']);
          assert.ok(Number(third.res.headers.get('retry-after')) > 0);
        });
        assert.equal(charged, 0);
      });
    });

    describe('GET /cases/:id/pdf', () => {
      it('hands out a link that decrypts per the spec and downloads the rendered judgment, for 5 credits', async () => {
        let body: Json = {};
        const charged = await cost(async () => {
          body = (await call(fixture.keys.active, 'GET', '/cases/sc-inabs-5861/pdf')).body;
        });
        assert.equal(charged, 5);
        const data = body.data as Json;
        const url = decryptPdfLink(data.pdfUrl as string, data.caseId as string, data.caseNumber as string);
        assert.ok(url.startsWith('http://localhost/api/v1/prod/'), url);
        const download = await t.app.request(url.replace('http://localhost', ''));
        assert.equal(download.status, 200);
        assert.equal(download.headers.get('content-type'), 'application/pdf');
        assert.equal(new TextDecoder().decode((await download.arrayBuffer()).slice(0, 5)), '%PDF-');
        const again = (await call(fixture.keys.active, 'GET', '/cases/sc-inabs-5861/pdf')).body.data as Json;
        assert.notEqual(again.pdfUrl, data.pdfUrl, 'a fresh IV per response');
      });

      it('a record with no document is PDF_NOT_STORED with a hint by court, uncharged', async () => {
        const hc = await database.db
          .selectFrom('cases')
          .select('caseId')
          .where('source', '=', 'ecourts-hc-case-status')
          .executeTakeFirstOrThrow();
        const charged = await cost(async () => {
          const { res, body } = await call(fixture.keys.active, 'GET', `/cases/${encodeURIComponent(hc.caseId)}/pdf`);
          assert.deepEqual([res.status, body.code], [404, 'PDF_NOT_STORED']);
          assert.match(body.hint as string, /request-timeline/);
        });
        assert.equal(charged, 0);
      });

      it('the monthly PDF cap is PDF_LIMIT_REACHED, uncharged', async () => {
        assert.equal((await call(cappedKey, 'GET', '/cases/sc-inabs-5861/pdf')).res.status, 200);
        const charged = await cost(async () => {
          const { res, body } = await call(cappedKey, 'GET', '/cases/sc-inabs-5861/pdf');
          assert.deepEqual([res.status, body.code], [429, 'PDF_LIMIT_REACHED']);
        });
        assert.equal(charged, 0);
      });
    });

    describe('GET /judges/search', () => {
      it('matches a substring case-insensitively with stored spellings, at most 50, for 1 credit', async () => {
        let body: Json = {};
        const charged = await cost(async () => {
          body = (await call(fixture.keys.active, 'GET', '/judges/search?q=sanjay')).body;
        });
        assert.equal(charged, 1);
        const names = (body.data as Json[]).map((j) => j.name as string);
        assert.ok(names.includes('SANJAY DHAR'), names.join(', '));
        assert.ok(names.every((n) => n.toLowerCase().includes('sanjay')));
        const all = await call(fixture.keys.active, 'GET', '/judges/search');
        assert.equal((all.body.data as Json[]).length, 50);
        assert.ok(((all.body.meta as Json).total as number) > 1000, 'KHOJ profiles are merged in');
      });
    });
  });
